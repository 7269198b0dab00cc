/**
 * The types of a webhook call, and builders that make a correct response easy to write:
 *
 *     return { responses: [text("Your order has shipped"), quickReplies("Anything else?", [postback("No", "no")])] };
 *
 * Builders only shape plain objects; they do not validate. The handler validates what your
 * function returns, and `verifyWebhookResponse` does the same in your unit tests.
 */
import type { webhookLimits } from "../limits";

// The types of a call, written out so the kit's declarations never reach zod's; ./schema.ts
// holds each equal to its schema at compile time.

/** Sends `value` back into the chat as the user's answer. */
export interface PostbackButton {
    type: "postback";
    title: string;
    value: string;
}
/** Moves the chat to a story node: `value` is the node's id. */
export interface GotoButton {
    type: "goto";
    title: string;
    value: string;
}
/** Opens `value`, a URL, in the browser. */
export interface UrlButton {
    type: "url";
    title: string;
    value: string;
}
export type WebviewHeight = (typeof webhookLimits.buttons.webview.heights)[number];
/** Opens `value`, a URL, inside the chat. */
export interface WebviewButton {
    type: "webview";
    title: string;
    value: string;
    height?: WebviewHeight;
}
/** Calls `value`, a phone number. */
export interface PhoneButton {
    type: "phone";
    title: string;
    value: string;
}
/** The buttons quick replies may carry. */
export type QuickReplyButton = PostbackButton | GotoButton;
/** The buttons cards and a buttons response may carry. */
export type Button = PostbackButton | GotoButton | UrlButton | WebviewButton | PhoneButton;

export interface TextResponse {
    type: "text";
    delay?: number;
    message: string;
}
export interface RandomTextResponse {
    type: "randomText";
    delay?: number;
    messages: string[];
}
export interface ImageResponse {
    type: "image";
    delay?: number;
    imageUrl: string;
}
export interface QuickRepliesResponse {
    type: "quickReplies";
    delay?: number;
    title: string;
    buttons: QuickReplyButton[];
}
export interface Card {
    title: string;
    subtitle: string;
    imageUrl: string;
    buttons: Button[];
}
export interface CardsResponse {
    type: "cards";
    delay?: number;
    elements: Card[];
}
export interface ButtonsResponse {
    type: "buttons";
    delay?: number;
    title: string;
    buttons: Button[];
}
export type BotResponse =
    TextResponse | RandomTextResponse | ImageResponse | QuickRepliesResponse | CardsResponse | ButtonsResponse;

/** What a backend answers: bot responses to send, attributes to store; `{}` is valid. */
export interface WebhookResponse {
    responses?: BotResponse[];
    attributes?: Record<string, unknown>;
}

/** What ChatBot POSTs. ChatBot may send more than is documented: other keys are kept. */
export interface WebhookRequest {
    chatId: string;
    messageId: string;
    userId: string;
    /** Only channel integrations supply one. */
    externalId?: string | null;
    node: {
        id: string;
        name: string;
        type: "WEBHOOK";
        webhookId: string;
        webhookName: string;
        [key: string]: unknown;
    };
    userAttributes?: Record<string, unknown>;
    attributes?: Record<string, unknown>;
    [key: string]: unknown;
}

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
