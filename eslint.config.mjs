// @ts-check
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
    {
        ignores: [
            "dist/**",
            "node_modules/**",
            "**/node_modules/**",
            ".bench/**",
            "examples/*/bin/**",
            "release/**",
            ".plugin/**",
        ],
    },
    js.configs.recommended,
    ...tseslint.configs.recommended,
    {
        languageOptions: {
            globals: {
                require: "readonly",
                module: "writable",
                process: "readonly",
                console: "readonly",
                __dirname: "readonly",
                Buffer: "readonly",
                setTimeout: "readonly",
                clearTimeout: "readonly",
                setInterval: "readonly",
                clearInterval: "readonly",
                URL: "readonly",
                NodeJS: "readonly",
            },
        },
        rules: {
            // Heavy modules (undici, zod schemas) are loaded on first use, by require(), to keep
            // the plugin's cold start and preview cheap.
            "@typescript-eslint/no-require-imports": "off",
            "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
        },
    },
    {
        files: ["**/*.js", "**/*.cjs"],
        languageOptions: { sourceType: "commonjs" },
    },
);
