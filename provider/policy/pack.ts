/** The policy pack the package ships (its `policy-pack` folder loads this module). */
import { PolicyPack } from "@pulumi/policy";
import { chatbotPolicies } from "./rules";

new PolicyPack("pulumi-chatbot", { policies: chatbotPolicies });
