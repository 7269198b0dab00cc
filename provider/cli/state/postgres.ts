/**
 * PostgreSQL as a state backend (`postgres://user:password@host:port/database?sslmode=...`): a
 * StateBackend of index.ts, read with node-postgres (`pg`, an optional peer dependency).
 *
 * Pulumi's backend (pkg/backend/diy/postgres, v3.274.1) keeps one table (`table` in the URL's
 * query, default `pulumi_state`) with a row per "file": `key TEXT PRIMARY KEY, data JSON` where
 * data is `{"data": <base64 of the content>}`. The URL's path (the database's name) prefixes every
 * key, as a bucket's folder does (diy/backend.go: `blob.PrefixedBucket`). Connections are made as
 * Pulumi's driver (lib/pq) makes them: the URL's parameters, the PG* environment variables, and
 * SSL required unless the URL or PGSSLMODE says otherwise.
 */
import { requireOptional } from "../../optionalPackage";
import { keyPrefix, type StateBackend } from "./index";

/** What is used here of node-postgres's Client. pg ships no types, and @types/pg is not a
 *  dependency: TypeScript adds every @types package of node_modules to a project, and its types
 *  do not compile with TypeScript 5.0 (seen in tests/cli/packaging.test.ts). */
export interface PgClient {
    connect(): Promise<unknown>;
    query(sql: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
    end(): Promise<void>;
}
export type PgClientClass = new (config: {
    connectionString?: string;
    host?: string;
    port?: number;
    user?: string;
    password?: string;
    database?: string;
}) => PgClient;

/** A table name as Pulumi puts it into its SQL: a name, optionally schema-qualified. */
const TABLE = /^[A-Za-z_][A-Za-z0-9_$]*(\.[A-Za-z_][A-Za-z0-9_$]*)?$/;

export function open(url: string, env: NodeJS.ProcessEnv): StateBackend {
    const { Client } = requireOptional<{ Client: PgClientClass }>("pg", "recover on postgres:// state");
    const u = new URL(url);
    const table = u.searchParams.get("table") ?? "pulumi_state";
    if (!TABLE.test(table)) throw new Error(`the backend URL's table ${JSON.stringify(table)} is not a table name.`);
    u.searchParams.delete("table");
    // libpq's meaning of sslmode (lib/pq's), not node-postgres's stricter default for `require`.
    if (!u.searchParams.has("sslmode") && !env.PGSSLMODE) u.searchParams.set("sslmode", "require");
    u.searchParams.set("uselibpqcompat", "true");
    const prefix = keyPrefix(u);
    const client = new Client({ connectionString: u.toString() });
    let connected: Promise<unknown> | undefined;
    const query = async (sql: string, values: unknown[]) => {
        connected ??= client.connect();
        await connected;
        return (await client.query(sql, values)).rows;
    };
    return {
        async list(dir) {
            const like = `${(prefix + dir).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
            const rows = await query(`SELECT key FROM ${table} WHERE key LIKE $1 ORDER BY key`, [like]);
            return rows.map((r) => String(r.key).slice(prefix.length));
        },
        async read(key) {
            const rows = await query(`SELECT data FROM ${table} WHERE key = $1`, [prefix + key]);
            if (rows.length === 0) throw new Error(`no ${key} in the PostgreSQL backend`);
            // A JSON column: node-postgres parses it.
            const { data } = rows[0].data as { data?: string };
            return Buffer.from(data ?? "", "base64").toString("utf8");
        },
        async repairMetadata() {
            return [];
        },
        async close() {
            if (connected) await client.end().catch(() => undefined);
        },
    };
}
