/** The policy pack the package ships (its `policy-pack` folder loads this module). */
import { requireOptional } from "../optionalPackage";
import { chatbotPolicies } from "./rules";

const { PolicyPack } = requireOptional<typeof import("@pulumi/policy")>("@pulumi/policy", "the policy pack");
new PolicyPack("pulumi-chatbot", { policies: chatbotPolicies });
