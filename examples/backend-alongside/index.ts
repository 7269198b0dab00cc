/**
 * A ChatBot webhook backend and the connection that calls it, in one program: an AWS Lambda
 * function behind a function URL, and a WebhookConnection whose `url` is that function URL. The
 * backend's basic-auth password goes to both sides from one secret in stack config.
 *
 *   pulumi config set aws:region eu-west-1
 *   pulumi config set storyId 5f3c0d1e2a4b6c8d9e0f1a2b
 *   pulumi config set --secret basicPassword <password ChatBot sends, the backend checks>
 *   pulumi config set --secret webhookToken <token stored with the connection>
 *   pulumi config set --secret chatbot:token <ChatBot developer access token>
 *
 * Rotating the token or the password (README.md, "Rotating the token or the password"): the old
 * value as previousWebhookToken or previousBasicPassword, the new one in its place, `pulumi up`;
 * then `pulumi config rm` the previous one, `pulumi up`.
 */
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import * as aws from "@pulumi/aws";
import * as chatbot from "pulumi-chatbot";

const cfg = new pulumi.Config();
const storyId = cfg.require("storyId");
const basicPassword = cfg.requireSecret("basicPassword");
const webhookToken = cfg.requireSecret("webhookToken");
// During a rotation only: the value the backend still accepts while the connection switches.
const previousWebhookToken = cfg.getSecret("previousWebhookToken");
const previousBasicPassword = cfg.getSecret("previousBasicPassword");
const environment = cfg.get("environment") ?? "production";
const basicUsername = "chatbot";

// The backend's code: backend/index.mjs and what it imports, the webhook kit and zod (its only
// dependency at run time), taken from this project's node_modules as they were installed.
const kit = path.dirname(require.resolve("pulumi-chatbot/package.json"));
const zod = path.dirname(require.resolve("zod/package.json", { paths: [kit] }));
const code = new pulumi.asset.AssetArchive({
    "index.mjs": new pulumi.asset.FileAsset(path.join(__dirname, "backend", "index.mjs")),
    "node_modules/pulumi-chatbot/package.json": new pulumi.asset.FileAsset(path.join(kit, "package.json")),
    "node_modules/pulumi-chatbot/dist": new pulumi.asset.FileArchive(path.join(kit, "dist")),
    "node_modules/zod": new pulumi.asset.FileArchive(zod),
});

// The backend: backend/index.mjs, run by Lambda, reachable at a public function URL.
const role = new aws.iam.Role("backend", {
    assumeRolePolicy: aws.iam.assumeRolePolicyForPrincipal({ Service: "lambda.amazonaws.com" }),
});
new aws.iam.RolePolicyAttachment("backend-logs", {
    role: role.name,
    policyArn: aws.iam.ManagedPolicy.AWSLambdaBasicExecutionRole,
});

const backend = new aws.lambda.Function("backend", {
    runtime: aws.lambda.Runtime.NodeJS22dX,
    handler: "index.handler",
    role: role.arn,
    code,
    // ChatBot gives up on a webhook call after 10 seconds.
    timeout: 10,
    environment: {
        variables: {
            BASIC_USERNAME: basicUsername,
            BASIC_PASSWORD: basicPassword,
            // The kit answers ChatBot's verification request with it and checks it on every call.
            WEBHOOK_TOKEN: webhookToken,
            ...(previousWebhookToken ? { PREVIOUS_WEBHOOK_TOKEN: previousWebhookToken } : {}),
            ...(previousBasicPassword ? { PREVIOUS_BASIC_PASSWORD: previousBasicPassword } : {}),
            ENVIRONMENT: environment,
        },
    },
});

// ChatBot calls without AWS credentials: the URL is public and the backend checks basic auth.
const backendUrl = new aws.lambda.FunctionUrl("backend", {
    functionName: backend.name,
    authorizationType: "NONE",
});
const urlPermission = new aws.lambda.Permission("backend-url", {
    action: "lambda:InvokeFunctionUrl",
    function: backend.name,
    principal: "*",
    functionUrlAuthType: "NONE",
});
const invokePermission = new aws.lambda.Permission("backend-invoke", {
    action: "lambda:InvokeFunction",
    function: backend.name,
    principal: "*",
    invokedViaFunctionUrl: true,
});

// The connection ChatBot calls the backend through: its url is the function URL output, so
// Pulumi creates the backend first (ChatBot verifies it when the connection is created) and
// updates the connection if the URL ever changes.
const connection = new chatbot.WebhookConnection(
    "orders",
    {
        storyId,
        url: backendUrl.functionUrl,
        token: webhookToken,
        auth: { username: basicUsername, password: basicPassword },
        headers: { "X-Environment": environment },
    },
    // ChatBot calls the URL as the connection is created: without the permissions it would get a
    // 403. And the function first: in a rotation, the connection sends the new token or password
    // only once the function's deploy that accepts it has finished.
    { dependsOn: [backend, urlPermission, invokePermission] },
);

export const connectionId = connection.id;
export const webhookUrl = backendUrl.functionUrl;
