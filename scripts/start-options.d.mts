/** The options `npm start` gives node, read from package.json's `start` (scripts/start-options.mjs). */
export declare const startNodeOptions: () => string[]
