/**
 * What a program registers: the arguments a resource class hands `pulumi.dynamic.Resource`, built
 * from the resource's spec (./spec.ts). What runs inside the plugin is ./dynamicProvider.ts.
 */
import * as pulumi from "@pulumi/pulumi";
import * as path from "path";
import type { DynamicProvider } from "./dynamicProvider";
import { ADOPT_KEY, DYNAMIC_MODULE, inputKeys as inputKeysOf, keysWhere, unsetProperties, type AnySpec } from "./spec";

/**
 * The provider object for a resource module: the module's own exports. Installed under
 * node_modules (as npm, yarn and pnpm install it), the SDK serializes it as a `require()` of the
 * package's `providers/<name>` entry. Anywhere else (a linked checkout) the SDK would copy the
 * module's code by value, so a small object that requires the same entry by name stands in.
 */
function providerModule(mod: ResourceModule): pulumi.dynamic.ResourceProvider {
    if (mod.filename.split(path.sep).includes("node_modules")) {
        return mod.exports as pulumi.dynamic.ResourceProvider;
    }
    const entry = `pulumi-chatbot/providers/${path.basename(mod.filename).replace(/\.[jt]s$/, "")}`;
    const impl = (): DynamicProvider => require(entry);
    return {
        configure: (req) => impl().configure(req),
        check: (olds, news) => impl().check(olds, news),
        diff: (id, olds, news) => impl().diff(id, olds, news),
        create: (inputs) => impl().create(inputs),
        read: (id, props) => impl().read(id, props ?? {}),
        update: (id, olds, news) => impl().update(id, olds, news),
        delete: (id, props) => impl().delete(id, props),
    };
}

/** The module a resource's class is declared in: its exports are the dynamic provider. */
export interface ResourceModule {
    filename: string;
    exports: unknown;
}

/**
 * The arguments of `pulumi.dynamic.Resource`'s constructor for a resource of `spec`, declared in
 * module `mod`:
 * - a `name` input defaults to the resource's name;
 * - secret inputs are marked secret even when the program passes them plain, and their outputs
 *   too (`additionalSecretOutputs`: the plugin returns them unwrapped);
 * - with `opts.id` (`.get()`) the SDK reads the resource: every property is an output to fill;
 * - the `import` option becomes `adoptId`: the engine's import step reads with the id alone, which
 *   a dynamic provider cannot serve (pulumi/pulumi#16175), while an adopting create works with
 *   every engine.
 */
export function registration(
    spec: AnySpec,
    mod: ResourceModule,
    name: string,
    args: object,
    opts: pulumi.CustomResourceOptions | undefined,
): [pulumi.dynamic.ResourceProvider, string, Record<string, unknown>, pulumi.CustomResourceOptions, string, string] {
    const inputKeys = inputKeysOf(spec);
    const secretKeys = keysWhere(spec, "secret");
    const given: Record<string, unknown> = Object.fromEntries(Object.entries(args ?? {}));
    let props: Record<string, unknown>;
    const { import: importId, ...rest } = opts ?? {};
    if (rest.id) {
        props = unsetProperties(spec, "all");
    } else {
        props = unsetProperties(spec, "outputs");
        const secret = new Set<string>(secretKeys);
        for (const key of inputKeys) {
            const value = key === "name" ? (given.name ?? name) : given[key];
            props[key] = value !== undefined && secret.has(key) ? pulumi.secret(value) : value;
        }
        props[ADOPT_KEY] = given[ADOPT_KEY] ?? importId;
    }
    const additionalSecretOutputs = [...(rest.additionalSecretOutputs ?? []), ...secretKeys];
    return [providerModule(mod), name, props, { ...rest, additionalSecretOutputs }, DYNAMIC_MODULE, spec.type];
}

/** The base of every resource's class: what each class registers comes from its spec. */
export abstract class ChatbotResource extends pulumi.dynamic.Resource {
    /** Brings an existing one, by its id, into the program (read only). */
    static get<T>(
        this: new (name: string, args: never, opts?: pulumi.CustomResourceOptions) => T,
        name: string,
        id: pulumi.Input<string>,
        opts?: pulumi.CustomResourceOptions,
    ): T {
        // With an id the SDK reads the resource instead of registering it: no arguments are used.
        return new this(name, {} as never, { ...opts, id });
    }

    /** Registers a resource of `spec`, whose class is declared in module `mod` (its exports are
     *  the dynamic provider). */
    protected constructor(
        spec: AnySpec,
        mod: ResourceModule,
        name: string,
        args: object,
        opts: pulumi.CustomResourceOptions | undefined,
    ) {
        super(...registration(spec, mod, name, args, opts));
    }
}

/** A resource's outputs as its class has them: each an Output (an optional one may hold undefined). */
export type OutputProperties<O> = { readonly [K in keyof O]-?: pulumi.Output<O[K]> };

/** What `resourceClass` makes: `new <Type>(name, args, opts)`, with every output, and
 *  `<Type>.get(name, id)`. */
export type ResourceClass<Args, O> = (new (
    name: string,
    args: Args,
    opts?: pulumi.CustomResourceOptions,
) => ChatbotResource & OutputProperties<O>) &
    Pick<typeof ChatbotResource, "get">;

/**
 * The base of a resource's class, made from its spec: it registers a resource of `spec`, declared
 * in module `mod` (whose exports are the dynamic provider), and has each output of `O`, so a
 * resource file's class is one line: `class WebhookConnection extends resourceClass<Args,
 * Outputs>(spec, module) {}`.
 */
export function resourceClass<Args extends object, O>(spec: AnySpec, mod: ResourceModule): ResourceClass<Args, O> {
    class Resource extends ChatbotResource {
        constructor(name: string, args: Args, opts?: pulumi.CustomResourceOptions) {
            super(spec, mod, name, args, opts);
        }
    }
    return Resource as unknown as ResourceClass<Args, O>;
}
