// Builds the committed UI bundle: `npm ci && npm run build` (from ui/) rewrites api/static/.
// Run it after changing anything under ui/src or the versions in package.json; kgrag itself
// never needs Node: the output is packaged with the Python code (pyproject package-data).
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { build } from "esbuild";

const out = "../api/static";
mkdirSync(`${out}/vendor`, { recursive: true });
// The bundle names the sources it was built from, so a test can tell a stale api/static/app.js without Node.
const source = createHash("sha256");
for (const f of ["src/main.js", "package-lock.json"]) source.update(readFileSync(f));
await build({
  entryPoints: ["src/main.js"], bundle: true, minify: true, format: "iife", target: ["es2020"],
  banner: { js: `/* kgrag-ui sources sha256:${source.digest("hex")} (src/main.js, package-lock.json) */` },
  outfile: `${out}/app.js`, legalComments: "eof", logLevel: "info",
});
for (const f of ["index.html", "app.css", "favicon.svg"]) copyFileSync(`src/${f}`, `${out}/${f}`);
const swagger = "node_modules/swagger-ui-dist";
for (const f of ["swagger-ui-bundle.js", "swagger-ui.css", "LICENSE", "NOTICE"]) {
  copyFileSync(`${swagger}/${f}`, `${out}/vendor/${f === "LICENSE" || f === "NOTICE" ? `swagger-ui-${f}` : f}`);
}
