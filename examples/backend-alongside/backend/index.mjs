// The webhook backend, as AWS Lambda runs it behind a function URL (payload format 2.0). No
// dependencies, so the folder is the whole deployment package. It checks the basic authorization
// ChatBot sends, reads the chat's attributes, and answers with a text and an attribute, in the
// shape ChatBot expects (see pulumi-chatbot/webhook for typed builders and a full handler).
import { timingSafeEqual } from "node:crypto";

const expected = () =>
    "Basic " + Buffer.from(`${process.env.BASIC_USERNAME}:${process.env.BASIC_PASSWORD}`).toString("base64");

function sameText(a, b) {
    const x = Buffer.from(String(a ?? ""));
    const y = Buffer.from(b);
    return x.length === y.length && timingSafeEqual(x, y);
}

function reply(statusCode, body) {
    return { statusCode, headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
}

export async function handler(event) {
    if (event?.requestContext?.http?.method !== "POST") return reply(405, { error: "ChatBot calls with POST" });
    if (!sameText(event.headers?.authorization, expected())) return reply(401, { error: "unauthorized" });
    let call;
    try {
        const raw = event.isBase64Encoded ? Buffer.from(event.body ?? "", "base64").toString("utf8") : event.body;
        call = JSON.parse(raw ?? "");
    } catch {
        return reply(400, { error: "the body is not JSON" });
    }
    const orderId = call?.attributes?.order_id;
    const message = orderId ? `Order ${String(orderId).slice(0, 64)} has shipped.` : "Which order is it about?";
    return reply(200, {
        responses: [{ type: "text", message }],
        attributes: { order_status: orderId ? "shipped" : "unknown", environment: process.env.ENVIRONMENT ?? "" },
    });
}
