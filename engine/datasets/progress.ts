// Progress of a sync: a bar on a terminal (cli-progress), plain log lines otherwise (the server, CI, tests).
import cliProgress from "cli-progress";
import type { Logger } from "../basics/log.ts";
import type { DatasetProgress } from "./types.ts";

export interface SyncProgress extends DatasetProgress {
  done(): void;
}

export function createProgress(dataset: string, log: Logger, terminal = Boolean(process.stderr.isTTY)): SyncProgress {
  return terminal ? new BarProgress(dataset) : new LogProgress(dataset, log);
}

class BarProgress implements SyncProgress {
  private readonly dataset: string;
  private bar?: cliProgress.SingleBar;
  constructor(dataset: string) {
    this.dataset = dataset;
  }
  phase(label: string, total?: number): void {
    this.done();
    if (!total) {
      process.stderr.write(`${this.dataset}: ${label}\n`);
      return;
    }
    this.bar = new cliProgress.SingleBar({
      format: `${this.dataset}: ${label.padEnd(34)} [{bar}] {percentage}% {value}/{total}`,
      stream: process.stderr,
      hideCursor: true,
    }, cliProgress.Presets.shades_classic);
    this.bar.start(total, 0);
  }
  tick(n = 1): void {
    this.bar?.increment(n);
  }
  log(message: string): void {
    if (this.bar) this.bar.stop();
    this.bar = undefined;
    process.stderr.write(`${this.dataset}: ${message}\n`);
  }
  done(): void {
    this.bar?.stop();
    this.bar = undefined;
  }
}

/** One line when a phase starts, and one at each quarter of a phase with a known total. */
class LogProgress implements SyncProgress {
  private readonly dataset: string;
  private readonly logger: Logger;
  private label = "";
  private total = 0;
  private count = 0;
  private nextReport = Infinity;
  constructor(dataset: string, log: Logger) {
    this.dataset = dataset;
    this.logger = log;
  }
  phase(label: string, total?: number): void {
    this.label = label;
    this.total = total ?? 0;
    this.count = 0;
    this.nextReport = this.total ? this.total / 4 : Infinity;
    this.logger.info({ dataset: this.dataset, ...(total ? { total } : {}) }, label);
  }
  tick(n = 1): void {
    this.count += n;
    if (this.count < this.nextReport) return;
    this.logger.info({ dataset: this.dataset, done: this.count, total: this.total }, `${this.label}: ${Math.round((100 * this.count) / this.total)}%`);
    this.nextReport += this.total / 4;
  }
  log(message: string): void {
    this.logger.info({ dataset: this.dataset }, message);
  }
  done(): void {}
}
