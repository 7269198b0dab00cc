// The acceptance tier (`npm run test:live`), apart from `npm test`'s selection
// (tests/suite.mocharc.js): its own files, serially (one account, one request at a time), with the
// root hooks of ./account.ts that open the account (live, or the simulator in a process of its own)
// and sweep everything the run made. `npm run test:live -- --record` also writes the fidelity
// record (docs/api-fidelity.md and .json): mocha leaves an option it does not know alone.
"use strict";
const path = require("path");
const base = require("../../.mocharc.js");

if (process.argv.includes("--record")) process.env.CHATBOT_LIVE_RECORD = "1";

module.exports = {
    ...base,
    require: [...base.require, path.join(__dirname, "account.ts")],
    spec: ["contract.test.ts", "programs.test.ts"].map((f) => path.join("tests", "live", f)),
    timeout: 120000,
};
