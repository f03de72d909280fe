/** Types of the Stryker ignorer plugin (fault-switches.mjs), for its tests. */
export declare const strykerPlugins: readonly [
  {
    readonly kind: 'Ignore';
    readonly name: 'fault-switches';
    readonly value: { shouldIgnore(path: { readonly node: unknown; readonly parent: unknown; readonly key: string | number; readonly listKey: string | undefined }): string | undefined };
  },
];
