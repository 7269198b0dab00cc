/**
 * The types of a webhook call, and builders that make a correct response easy to write:
 *
 *     return { responses: [text("Your order has shipped"), quickReplies("Anything else?", [postback("No", "no")])] };
 *
 * Builders only shape plain objects; they do not validate. The handler validates what your
 * function returns, and `verifyWebhookResponse` does the same in your unit tests.
 */
import type {
    Button,
    ButtonsResponse,
    Card,
    CardsResponse,
    GotoButton,
    ImageResponse,
    PhoneButton,
    PostbackButton,
    QuickRepliesResponse,
    QuickReplyButton,
    RandomTextResponse,
    TextResponse,
    UrlButton,
    WebviewButton,
    WebviewHeight,
} from "../schema/webhook";

export type {
    BotResponse,
    Button,
    ButtonsResponse,
    Card,
    CardsResponse,
    GotoButton,
    ImageResponse,
    PhoneButton,
    PostbackButton,
    QuickRepliesResponse,
    QuickReplyButton,
    RandomTextResponse,
    TextResponse,
    UrlButton,
    WebviewButton,
    WebviewHeight,
    WebhookRequest,
    WebhookResponse,
} from "../schema/webhook";

/** Options every bot response takes. */
export interface ResponseOptions {
    /** Milliseconds to wait before this response is sent: 100 to 10000; ChatBot's default is 1000. */
    delay?: number;
}

/** Adds `delay` only when given, so the object holds no `undefined` (JSON stays minimal). */
function withDelay<T extends object>(response: T, options?: ResponseOptions): T & { delay?: number } {
    return options?.delay === undefined ? response : { ...response, delay: options.delay };
}

// Bot responses -------------------------------------------------------------------------------

/** A text message: 1 to 1024 characters. */
export function text(message: string, options?: ResponseOptions): TextResponse {
    return withDelay({ type: "text", message }, options);
}

/** One of 1 to 20 messages (each 1 to 1024 characters), picked at random by ChatBot. */
export function randomText(messages: string[], options?: ResponseOptions): RandomTextResponse {
    return withDelay({ type: "randomText", messages }, options);
}

/** An image, by URL (1 to 2048 characters). */
export function image(imageUrl: string, options?: ResponseOptions): ImageResponse {
    return withDelay({ type: "image", imageUrl }, options);
}

/** A question (1 to 640 characters) with 1 to 13 postback or goto buttons. */
export function quickReplies(
    title: string,
    buttons: QuickReplyButton[],
    options?: ResponseOptions,
): QuickRepliesResponse {
    return withDelay({ type: "quickReplies", title, buttons }, options);
}

/** A carousel of cards; each card has a title, subtitle, image and 1 to 5 buttons. */
export function cards(elements: Card[], options?: ResponseOptions): CardsResponse {
    return withDelay({ type: "cards", elements }, options);
}

/** A message (1 to 640 characters) with 1 to 5 buttons of any type. */
export function buttons(title: string, buttonList: Button[], options?: ResponseOptions): ButtonsResponse {
    return withDelay({ type: "buttons", title, buttons: buttonList }, options);
}

// Buttons -------------------------------------------------------------------------------------

/** Sends `value` (1 to 2000 characters) back into the chat as the user's answer. */
export function postback(title: string, value: string): PostbackButton {
    return { type: "postback", title, value };
}

/** Moves the chat to a story node, by its id (a UUIDv4). */
export function goto(title: string, storyNodeUuid: string): GotoButton {
    return { type: "goto", title, value: storyNodeUuid };
}

/** Opens a URL (up to 2048 characters) in the browser. */
export function urlButton(title: string, url: string): UrlButton {
    return { type: "url", title, value: url };
}

/** Opens a URL inside the chat; without `height` ChatBot uses `compact`. */
export function webview(title: string, url: string, height?: WebviewHeight): WebviewButton {
    return height === undefined
        ? { type: "webview", title, value: url }
        : { type: "webview", title, value: url, height };
}

/** Calls a phone number: `+` and 2 to 15 digits. */
export function phone(title: string, phoneNumber: string): PhoneButton {
    return { type: "phone", title, value: phoneNumber };
}
