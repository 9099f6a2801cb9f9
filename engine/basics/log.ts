import { pino, type Logger } from "pino";

export type { Logger };

export function createLogger(level: string): Logger {
  const pretty = process.stdout.isTTY && level !== "silent" && !process.env.LOG_JSON;
  return pino({
    level,
    base: undefined,
    ...(pretty ? { transport: { target: "pino-pretty", options: { translateTime: "HH:MM:ss", ignore: "pid,hostname" } } } : {}),
  });
}
