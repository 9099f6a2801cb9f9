// Where start-up's memory goes, run as its own process by startup.bench.ts: the resident memory of Node alone,
// after loading the server's modules (code, libraries, TypeScript stripped), and once startServer() (what
// `npm start` runs) is listening, with the V8 heap's share. Prints one JSON line.
const stage = () => {
  const m = process.memoryUsage();
  const cpu = process.cpuUsage();
  return { rssMb: m.rss / 1048576, heapUsedMb: m.heapUsed / 1048576, heapTotalMb: m.heapTotal / 1048576, cpuMs: (cpu.user + cpu.system) / 1000 };
};
const node = stage();
const { startServer } = await import("../engine/http/server.ts");
const modules = stage();
const running = await startServer({ port: 0, host: "127.0.0.1" });
const listening = stage();
await running.close();
console.log(JSON.stringify({ node, modules, listening }));
