/**
 * What the package uses of zod, and its one import of it. The build bundles this module with the
 * parts of zod it names (scripts/build-clean.js), so the package carries about 200 kB of zod
 * rather than depending on zod's npm package (8 MB: zod 3 and 4, CommonJS and ES modules each).
 * Named, not `z`, so that the bundle leaves out what is not named (the whole `z` is 750 kB).
 * `registry` and `toJSONSchema` (7 kB) are for the build, which writes the webhook contract as
 * JSON Schema from the kit's schemas (webhook/jsonSchema.ts).
 */
export {
    array,
    discriminatedUnion,
    enum,
    literal,
    looseObject,
    null,
    number,
    object,
    record,
    registry,
    strictObject,
    string,
    toJSONSchema,
    union,
    unknown,
} from "zod";
export type { core, infer, ZodLiteral, ZodObject, ZodType } from "zod";
