/**
 * The fault matrix (tests/helpers/faultMatrix.ts) on `WebhookConnection`'s provider: the transport's faults.
 */
import { describeFaults, v2 } from "../helpers/faultMatrix";

describeFaults(v2, "transport");
