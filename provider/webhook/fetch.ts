/**
 * The kit for runtimes that speak the web-standard `Request` → `Response` shape: Cloudflare
 * Workers, Deno, Bun, Next.js route handlers, and Node 18+ behind any fetch-style server.
 *
 *     export default { fetch: createFetchHandler(async (call) => ({ responses: [text("Hi")] }), { token }) };
 *
 * Same options and statuses as `createWebhookHandler` (the flow is `core.ts`). Web-standard APIs
 * only: no Node module is imported here or by what this imports.
 */
import { createCallHandler, parseJson, readTextUpTo } from "./core";
import type { Body, WebhookFunctionOf, WebhookHandlerOptions } from "./core";

/** What your function gets beside the request: the `Request` itself (headers, URL). */
export interface FetchWebhookContext {
    request: Request;
}

/** Your backend, as the fetch handler calls it. */
export type FetchWebhookFunction = WebhookFunctionOf<FetchWebhookContext>;

/** Returns `(request) => Promise<Response>`: a Workers or Bun `fetch`, `Deno.serve`'s handler, a route's `POST`. */
export function createFetchHandler(
    fn: FetchWebhookFunction,
    options: WebhookHandlerOptions = {},
): (request: Request) => Promise<Response> {
    const handle = createCallHandler(fn, options);
    return async (request) => {
        const answer = await handle(
            {
                method: request.method,
                url: new URL(request.url),
                header: (name) => request.headers.get(name) ?? undefined,
                readBody: (limit) => readBody(request, limit),
            },
            { request },
        );
        // `undefined`: the body could not be read, so the caller is gone; something must be returned.
        if (!answer) return new Response(null, { status: 400 });
        return new Response(answer.body, { status: answer.status, headers: answer.headers });
    };
}

/** Reads the body up to `limit` bytes, stopping as soon as it is over. */
async function readBody(request: Request, limit: number): Promise<Body> {
    const declared = Number(request.headers.get("content-length"));
    if (Number.isFinite(declared) && declared > limit) return { kind: "tooLarge" };
    if (!request.body) return { kind: "notJson" };
    let text: string | undefined;
    try {
        text = await readTextUpTo(request.body, limit);
    } catch {
        return { kind: "aborted" };
    }
    return text === undefined ? { kind: "tooLarge" } : parseJson(text);
}
