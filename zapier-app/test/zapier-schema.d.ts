/** zapier-platform-core's schema check of an app definition, which the package ships without types. */
declare module 'zapier-platform-core/src/tools/schema' {
  /** The schema errors of an app definition; empty when it is valid. */
  export function validateApp(app: object): unknown[];
}
