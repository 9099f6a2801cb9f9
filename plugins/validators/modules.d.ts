// Type declarations for the two libraries of this group that ship none.
declare module "validator" {
  const validator: { isEmail(value: string, options?: Record<string, unknown>): boolean };
  export default validator;
}

declare module "uk-modulus-checking" {
  export default class UkModulusChecking {
    constructor(input: { accountNumber: string; sortCode: string });
    isValid(): boolean;
  }
}
