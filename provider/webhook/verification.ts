/**
 * The words of a create or update refused because the backend did not pass ChatBot's
 * verification request. What the real API answers then is not shown anywhere (neither the API
 * description nor the help center's "Verification request"), so this is the simulator's explicit
 * choice: HTTP 400 (badRequest), and a `status.message` that starts with
 * `VERIFICATION_FAILED_PREFIX`. The provider recognises it with `isVerificationFailure` to add
 * what ChatBot needs; pure, so any module may import it.
 */

/** How every verification-failure message begins; stable, so code may match on it. */
export const VERIFICATION_FAILED_PREFIX = "webhook verification failed:";

/** The message the simulator answers with, given what the verification request found. */
export function verificationFailureMessage(url: string, problems: readonly string[]): string {
    let where: string;
    try {
        const parsed = new URL(url);
        where = `${parsed.origin}${parsed.pathname}`; // no query or user info: they may hold secrets
    } catch {
        where = "the connection's url";
    }
    return (
        `${VERIFICATION_FAILED_PREFIX} ${problems.join("; ")}. ChatBot sent GET ${where}?challenge=<random>&token=<the ` +
        "connection's token> and needs HTTP 200 with the challenge as the whole body"
    );
}

/** True when an API message says the verification request failed. */
export function isVerificationFailure(message: string | undefined): boolean {
    return typeof message === "string" && message.startsWith(VERIFICATION_FAILED_PREFIX);
}
