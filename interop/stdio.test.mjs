import { defineSuite } from "./suite.mjs";

// The binary started by each client over stdio, as desktop clients do.
defineSuite("stdio");
