/** The fault matrix (tests/helpers/faultMatrix.ts) on `WebhookConnection`'s provider. */
import { describeFaults, v2 } from "../helpers/faultMatrix";

describeFaults(v2);
