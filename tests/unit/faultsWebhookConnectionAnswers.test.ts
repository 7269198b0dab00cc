/**
 * The fault matrix (tests/helpers/faultMatrix.ts) on `WebhookConnection`'s provider: answers not to be trusted.
 */
import { describeFaults, v2 } from "../helpers/faultMatrix";

describeFaults(v2, "answers");
