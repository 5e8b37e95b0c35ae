// Loaded with `node --import` before the conformance suite: installs the
// resolve hook of hooks.mjs (Node 20.6+).
import { register } from "node:module";

register("./hooks.mjs", import.meta.url);
