// The part of negotiator 1.x (the Accept-* parser of Express and of the compression middleware) this server uses.
declare module "negotiator" {
  import type { IncomingMessage } from "node:http";
  export default class Negotiator {
    constructor(request: IncomingMessage);
    /** The best of `available` by the client's q; `preferred` breaks ties. */
    encoding(available: string[], options?: { preferred?: string[] }): string | undefined;
  }
}
