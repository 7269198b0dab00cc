/** The fault matrix (tests/helpers/faultMatrix.ts) on `LegacyWebhook`'s provider. */
import { describeFaults, legacy } from "../helpers/faultMatrix";

describeFaults(legacy);
