/**
 * Every documented limit, written once (../shared API description, sections 2 and 8): what the
 * zod schemas enforce, what the simulator and the backend kit check, and what the README's tables
 * say (tests/unit/limits.test.ts holds the README to this table). Plain numbers: no zod here, so
 * reading a limit loads nothing.
 */

const range = <Min extends number, Max extends number>(min: Min, max: Max) => ({ min, max }) as const;

export const limits = {
    /** A v2 webhook connection (2.1, 4.1). */
    connection: {
        idLength: 24,
        name: range(1, 128),
        url: range(1, 1024),
        token: range(1, 1024),
        headers: range(1, 10),
        auth: range(1, 1024),
    },
    /** A legacy webhook (2.2, 4.2). The url has no documented minimum beyond being a URL. */
    legacy: {
        /** Undocumented: an id of what the API assigned, checked only as a short non-empty string. */
        id: range(1, 1024),
        name: range(1, 1024),
        url: range(1, 1024),
        token: range(1, 1024),
        headers: range(1, 99),
        headerName: range(1, 128),
        headerValue: range(1, 1024),
        auth: range(1, 1024),
    },
    /** A webhook call: the request ChatBot sends and the response a backend returns (2.6, 2.7, 8). */
    webhook: {
        /** ChatBot rejects a call that takes longer, including any proxy or load balancer (ms). */
        callTimeoutMs: 10_000,
        /** Redirects ChatBot follows on a webhook call; a second one fails the call. */
        maxRedirects: 1,
        /** Pause before a bot response is sent (ms); ChatBot uses `default` when it is absent. */
        delay: { min: 100, max: 10_000, default: 1000 },
        responses: {
            text: { message: range(1, 1024) },
            randomText: { messages: range(1, 20), message: range(1, 1024) },
            image: { imageUrl: range(1, 2048) },
            quickReplies: { title: range(1, 640), buttons: range(1, 13) },
            cards: { title: range(1, 80), subtitle: range(1, 80), imageUrl: range(1, 2048), buttons: range(1, 5) },
            buttons: { title: range(1, 640), buttons: range(1, 5) },
        },
        buttons: {
            postback: { title: range(1, 20), value: range(1, 2000) },
            goto: { title: range(1, 20), value: range(36, 36) },
            url: { title: range(0, 20), value: range(0, 2048) },
            webview: {
                title: range(1, 20),
                value: range(1, 2048),
                heights: ["full", "tall", "compact"],
                defaultHeight: "compact",
            },
            phone: { title: range(1, 20), value: range(3, 16) },
        },
    },
} as const;

/** The v2 connection's limits (`limits.connection`), under the name earlier releases exported. */
export const connectionLimits = limits.connection;
/** The legacy webhook's limits (`limits.legacy`). */
export const legacyLimits = limits.legacy;
/** A webhook call's limits (`limits.webhook`). */
export const webhookLimits = limits.webhook;
