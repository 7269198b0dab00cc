// The webhook backend, as AWS Lambda runs it behind a function URL. The webhook kit does the
// checking: it answers ChatBot's verification request (GET ?challenge=&token=), refuses calls
// without the connection's token or basic authorization (compared in constant time), validates
// ChatBot's request and this function's answer, and logs refused calls without their secrets.
// `forLambdaFunctionUrl` turns the function URL's event into a web-standard Request and back.
import { createFetchHandler, forLambdaFunctionUrl, text } from "pulumi-chatbot/webhook";

/** What the chat gets: a text, and attributes the story's filters can branch on. */
export function answer(call, environment) {
    const orderId = call.attributes?.order_id;
    return {
        responses: [text(orderId ? `Order ${String(orderId).slice(0, 64)} has shipped.` : "Which order is it about?")],
        attributes: { order_status: orderId ? "shipped" : "unknown", environment },
    };
}

/**
 * The Lambda handler for an environment: the program sets these variables on the function. During
 * a rotation the PREVIOUS_ ones hold the old token and password, still accepted beside the new.
 */
export function backendHandler(env) {
    const tokens = [env.WEBHOOK_TOKEN, env.PREVIOUS_WEBHOOK_TOKEN].filter(Boolean);
    const passwords = [env.BASIC_PASSWORD, env.PREVIOUS_BASIC_PASSWORD].filter(Boolean);
    const auth = env.BASIC_USERNAME ? passwords.map((password) => ({ username: env.BASIC_USERNAME, password })) : [];
    return forLambdaFunctionUrl(
        createFetchHandler((call) => answer(call, env.ENVIRONMENT ?? ""), {
            ...(tokens.length > 0 ? { token: tokens } : {}),
            ...(auth.length > 0 ? { auth } : {}),
        }),
    );
}

export const handler = backendHandler(process.env);
