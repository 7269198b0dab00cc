/**
 * The fault matrix (tests/helpers/faultMatrix.ts) on `LegacyWebhook`'s provider: the transport's faults.
 */
import { describeFaults, legacy } from "../helpers/faultMatrix";

describeFaults(legacy, "transport");
