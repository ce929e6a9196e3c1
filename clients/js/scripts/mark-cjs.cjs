// dist/cjs holds the CommonJS build (tsconfig.cjs.json) of a package whose
// "type" is "module": a package.json there tells Node (and TypeScript) that
// its .js and .d.ts files are CommonJS.
require("node:fs").writeFileSync(
  require("node:path").join(__dirname, "..", "dist", "cjs", "package.json"),
  JSON.stringify({ type: "commonjs" }) + "\n",
);
