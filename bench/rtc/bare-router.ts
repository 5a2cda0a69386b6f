/**
 * The baseline for the fan-out measurement: a bare mediasoup router from the worker pool, with
 * plain transports made directly on it, no room code in between.
 */
import type { MediasoupTypes, WorkerPool } from '../../service/src/media/worker-pool';
import { FANOUT_STREAM, type FanoutSetup } from './fanout';

const LOOPBACK: MediasoupTypes.TransportListenInfo = { protocol: 'udp', ip: '127.0.0.1' };

/** A FanoutSetup that builds the producer and its consumers on a new router of `pool`. */
export function bareRouterFanout(pool: WorkerPool): FanoutSetup {
  return async (consumerAddresses) => {
    const { mimeType, clockRate, channels, payloadType, ssrc } = FANOUT_STREAM;
    const { router, pid } = await pool.createRouter({ mediaCodecs: [{ kind: 'audio', mimeType, clockRate, channels }] });
    try {
      const producerTransport = await router.createPlainTransport({ listenInfo: LOOPBACK, rtcpMux: true, comedia: true });
      const producer = await producerTransport.produce({
        kind: 'audio',
        rtpParameters: { codecs: [{ mimeType, payloadType, clockRate, channels }], encodings: [{ ssrc }] },
      });
      const consumers: MediasoupTypes.Consumer[] = [];
      for (const address of consumerAddresses) {
        const consumerTransport = await router.createPlainTransport({ listenInfo: LOOPBACK, rtcpMux: true, comedia: false });
        await consumerTransport.connect(address);
        consumers.push(await consumerTransport.consume({ producerId: producer.id, rtpCapabilities: router.rtpCapabilities }));
      }
      return {
        producerAddress: { ip: producerTransport.tuple.localAddress, port: producerTransport.tuple.localPort },
        workerPid: pid,
        packetsSentToConsumers: async () => {
          const stats = await Promise.all(consumers.map((consumer) => consumer.getStats()));
          return stats.flat().reduce((sum, stat) => sum + (stat.type === 'outbound-rtp' ? stat.packetCount : 0), 0);
        },
        close: async () => router.close(),
      };
    } catch (error) {
      router.close();
      throw error;
    }
  };
}
