/**
 * What a media node counts about itself for placement: the mediasoup objects it holds, through mediasoup's
 * observer (the CPU its workers use is read by ../worker-cpu.ts).
 */
import { observer, type types } from 'mediasoup';

/** Routers, transports and consumers alive in this process's mediasoup workers. */
export class MediaCounters {
  routers = 0;
  transports = 0;
  consumers = 0;

  /** Counts from now on (create it before the workers start). */
  constructor() {
    observer.on('newworker', (worker: types.Worker) => {
      worker.observer.on('newrouter', (router: types.Router) => {
        this.routers++;
        router.observer.once('close', () => this.routers--);
        router.observer.on('newtransport', (transport: types.Transport) => {
          this.transports++;
          transport.observer.once('close', () => this.transports--);
          transport.observer.on('newconsumer', (consumer: types.Consumer) => {
            this.consumers++;
            consumer.observer.once('close', () => this.consumers--);
          });
        });
      });
    });
  }
}
