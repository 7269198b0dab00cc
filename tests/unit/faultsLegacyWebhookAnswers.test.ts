/**
 * The fault matrix (tests/helpers/faultMatrix.ts) on `LegacyWebhook`'s provider: answers not to be trusted.
 */
import { describeFaults, legacy } from "../helpers/faultMatrix";

describeFaults(legacy, "answers");
