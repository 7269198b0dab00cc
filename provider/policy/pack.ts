/** The policy pack the package ships (its `policy` folder loads this module). */
import { PolicyPack } from "@pulumi/policy";
import { chatbotPolicies } from "./rules";

new PolicyPack("pulumi-chatbot", { policies: chatbotPolicies });
