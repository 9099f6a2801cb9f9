// Only the in-process chain of the x402 tests (test/support/x402-chain.ts) uses hardhat: no contracts are compiled by it.
module.exports = { networks: { hardhat: { chainId: 31337 } } };
