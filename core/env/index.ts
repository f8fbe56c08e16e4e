// Environment variables: one declaration table (ENV_VARS) and typed, validated reads (loadEnv).
export * from './env-var-declaration.js';
export * from './env-vars.js';
export * from './load-env.js';
