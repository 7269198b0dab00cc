/**
 * S3 and S3-compatible object storage as a state backend
 * (`s3://bucket/folder?region=...&endpoint=host:port&s3ForcePathStyle=true&disableSSL=true`): a
 * StateBackend of index.ts, read with the AWS SDK's S3 client (an optional peer dependency).
 *
 * The URL is read as Pulumi v3.274.1 reads it (pkg/backend/diy/backend.go translateLegacyS3Params,
 * then gocloud.dev's s3blob and aws.V2ConfigFromURLParams): `region`, `endpoint` (http:// where
 * `disableSSL` or `disable_https` says so, else https://, unless it names its scheme),
 * `s3ForcePathStyle` or `use_path_style`, `profile`; the credentials from the AWS environment,
 * as the CLI takes them; the URL's path is the folder of every key. Objects are written whole,
 * with their attributes: there is no metadata file to repair.
 */
import { requireOptional } from "../../optionalPackage";
import { keyPrefix, type StateBackend } from "./index";

export function open(url: string, env: NodeJS.ProcessEnv): StateBackend {
    const { GetObjectCommand, ListObjectsV2Command, S3Client } = requireOptional<typeof import("@aws-sdk/client-s3")>(
        "@aws-sdk/client-s3",
        "recover on s3:// state",
    );
    const u = new URL(url);
    const q = u.searchParams;
    const bucket = decodeURIComponent(u.hostname);
    const prefix = keyPrefix(u);
    const yes = (name: string) => q.get(name)?.toLowerCase() === "true";
    let endpoint = q.get("endpoint") ?? undefined;
    if (endpoint && !endpoint.includes("://")) {
        endpoint = `${yes("disableSSL") || yes("disable_https") ? "http" : "https"}://${endpoint}`;
    }
    const client = new S3Client({
        // An S3-compatible server takes any region; AWS itself needs the bucket's.
        region: q.get("region") ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? (endpoint ? "us-east-1" : undefined),
        endpoint,
        forcePathStyle: yes("s3ForcePathStyle") || yes("use_path_style"),
        profile: q.get("profile") ?? env.AWS_PROFILE,
        // The handed environment's keys, where it has them; else the SDK's own chain (profiles).
        ...(env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
            ? {
                  credentials: {
                      accessKeyId: env.AWS_ACCESS_KEY_ID,
                      secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
                      sessionToken: env.AWS_SESSION_TOKEN,
                  },
              }
            : {}),
        // As Pulumi does for a server other than AWS: checksums only where the API requires them.
        ...(endpoint
            ? { requestChecksumCalculation: "WHEN_REQUIRED", responseChecksumValidation: "WHEN_REQUIRED" }
            : {}),
    });
    return {
        async list(dir) {
            const keys: string[] = [];
            let token: string | undefined;
            do {
                const page = await client.send(
                    new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix + dir, ContinuationToken: token }),
                );
                for (const o of page.Contents ?? []) if (o.Key) keys.push(o.Key.slice(prefix.length));
                token = page.IsTruncated ? page.NextContinuationToken : undefined;
            } while (token);
            return keys;
        },
        async read(key) {
            const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: prefix + key }));
            return (await object.Body?.transformToString("utf8")) ?? "";
        },
        async repairMetadata() {
            return [];
        },
        async close() {
            client.destroy();
        },
    };
}
