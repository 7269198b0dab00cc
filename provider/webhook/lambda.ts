/**
 * AWS Lambda behind a function URL (or API Gateway HTTP API): its event and result (payload
 * format 2.0) are not `Request` and `Response`, so this adapter turns one into the other around a
 * fetch handler:
 *
 *     export const handler = forLambdaFunctionUrl(createFetchHandler(answer, { token }));
 *
 * Web-standard APIs only, like the fetch handler it wraps.
 */

/** The part of a function URL event (payload format 2.0) the adapter reads. */
export interface LambdaFunctionUrlEvent {
    rawPath?: string;
    rawQueryString?: string;
    /** Lower-case names; repeated headers arrive joined with commas. */
    headers?: Record<string, string | undefined>;
    body?: string | null;
    isBase64Encoded?: boolean;
    requestContext: { domainName?: string; http: { method: string } };
}

/** What a function URL sends back to the caller. */
export interface LambdaFunctionUrlResult {
    statusCode: number;
    headers: Record<string, string>;
    body: string;
    isBase64Encoded: false;
}

/** Wraps a fetch handler (e.g. `createFetchHandler(...)`) as a function URL's Lambda handler. */
export function forLambdaFunctionUrl(
    handler: (request: Request) => Promise<Response>,
): (event: LambdaFunctionUrlEvent) => Promise<LambdaFunctionUrlResult> {
    return async (event) => {
        const method = event.requestContext.http.method;
        const host = event.requestContext.domainName ?? "lambda-url.invalid";
        const query = event.rawQueryString ? `?${event.rawQueryString}` : "";
        const headers = new Headers();
        for (const [name, value] of Object.entries(event.headers ?? {})) {
            if (value !== undefined) headers.set(name, value);
        }
        const hasBody = method !== "GET" && method !== "HEAD" && event.body != null;
        const request = new Request(`https://${host}${event.rawPath ?? "/"}${query}`, {
            method,
            headers,
            body: hasBody ? (event.isBase64Encoded ? fromBase64(event.body as string) : event.body) : undefined,
        });
        const response = await handler(request);
        const out: Record<string, string> = {};
        response.headers.forEach((value, name) => (out[name] = value));
        // The kit's answers are text (JSON, or the verification challenge): no base64 needed.
        return { statusCode: response.status, headers: out, body: await response.text(), isBase64Encoded: false };
    };
}

function fromBase64(value: string): Uint8Array {
    return Uint8Array.from(atob(value), (c) => c.charCodeAt(0));
}
