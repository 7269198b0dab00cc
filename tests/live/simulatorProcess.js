// The acceptance tier's API when no live account is given: the simulator of the installed package
// (`pulumi-chatbot/testing`) in a process of its own on 127.0.0.1, as the real API is remote. It
// writes one JSON line, `{ url, token }`, to standard output once it listens (a pipe to the tier,
// never a terminal); on SIGTERM, or when standard input closes (the tier is gone, killed or not),
// one more, `{ requests }` (how many it answered), and exits.
// argv[2]: the simulator's options as JSON (e.g. `{"verifyWebhooks":true}`).
"use strict";
const path = require("path");
const { createRequire } = require("module");

const installed = createRequire(path.join(__dirname, "..", "..", "node_modules", "_live_.js"));
const { ChatbotSimulator } = installed("pulumi-chatbot/testing");

ChatbotSimulator.start(JSON.parse(process.argv[2] || "{}")).then(
    (sim) => {
        let stopping = false;
        const stop = () => {
            if (stopping) return;
            stopping = true;
            process.stdout.write(`${JSON.stringify({ requests: sim.requests.length })}\n`);
            void sim.close().finally(() => process.exit(0));
        };
        process.on("SIGTERM", stop);
        process.stdin.on("end", stop);
        process.stdin.on("error", stop);
        process.stdin.resume();
        process.stdout.write(`${JSON.stringify({ url: sim.url, token: sim.token })}\n`);
    },
    (e) => {
        process.stderr.write(`the simulator did not start: ${e instanceof Error ? e.message : String(e)}\n`);
        process.exit(1);
    },
);
