// ollama-templates.js AUTOMAP.ts OUTDIR MODEL=NAME... - writes the chat
// template of each Ollama library MODEL to OUTDIR/NAME.jinja: the `gguf`
// string of its entry in OLLAMA_CHAT_TEMPLATE_MAPPING (npm
// @huggingface/ollama-utils, src/chat-template-automap.ts), which is the
// tokenizer.chat_template of the model's GGUF file, i.e. the Hugging Face
// model's own chat_template. The array literal is evaluated as JavaScript
// (its type annotation left out), so escapes are resolved as in the package.
"use strict";
const fs = require("fs");
const vm = require("vm");
const [src, out, ...pairs] = process.argv.slice(2);
const s = fs.readFileSync(src, "utf8");
const at = s.indexOf("OLLAMA_CHAT_TEMPLATE_MAPPING");
const a = s.indexOf("[", s.indexOf("=", at));
const b = s.lastIndexOf("];");
if (at < 0 || a < 0 || b < a) throw new Error(src + ": no OLLAMA_CHAT_TEMPLATE_MAPPING array");
const list = vm.runInNewContext("(" + s.slice(a, b + 1) + ")", {});
for (const p of pairs) {
  const eq = p.lastIndexOf("=");
  const model = p.slice(0, eq), name = p.slice(eq + 1);
  const e = list.find((x) => x.model === model);
  if (!e || typeof e.gguf !== "string") throw new Error(src + ": no gguf template for " + model);
  fs.writeFileSync(out + "/" + name + ".jinja", e.gguf);
}
