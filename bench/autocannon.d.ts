// The part of autocannon's API the benchmarks use (the package ships no types).
declare module "autocannon" {
  namespace autocannon {
    interface Histogram { average: number; p50: number; p90: number; p99: number; max: number; total: number }
    interface Result { requests: Histogram; latency: Histogram; throughput: Histogram; errors: number; timeouts: number; non2xx: number; duration: number }
    interface Options { url: string; connections?: number; duration?: number; amount?: number; headers?: Record<string, string>; method?: string }
  }
  function autocannon(opts: autocannon.Options): Promise<autocannon.Result>;
  export default autocannon;
}
