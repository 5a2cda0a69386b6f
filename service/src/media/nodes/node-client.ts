/**
 * The control plane's connection to one media node: its control channel and the shards the control plane holds
 * there. When the channel closes (the node stopped, died or became unreachable) every shard on it is lost.
 */
import type { Logger } from '../../shared/logger';
import { NodeLink } from './node-link';
import type { ShardCreated } from './node-protocol';
import type { NodeRecord } from './node-registry';
import { RemoteMediaShard } from './remote-media-shard';
import { peersOn } from './shard-dispatcher';

/** One media node as the control plane uses it. */
export class NodeClient {
  private readonly shards = new Map<string, RemoteMediaShard>();

  private constructor(
    readonly id: string,
    private readonly link: NodeLink,
    logger: Logger,
  ) {
    link.on('event', (frame) => this.shards.get(frame.shard)?.deliver(frame));
    link.once('closed', () => {
      logger.warn('media node: control channel closed; its rooms move', { node_id: id, shards: this.shards.size });
      for (const shard of [...this.shards.values()]) shard.lose();
    });
  }

  /** Connects to the node `record` describes. */
  static async connect(record: NodeRecord, secret: string, logger: Logger): Promise<NodeClient> {
    return new NodeClient(record.id, await NodeLink.connect(record.controlUrl, secret), logger);
  }

  /** True while the channel is open. */
  get open(): boolean {
    return this.link.open;
  }

  /** A new shard for the meeting on the node's least-loaded worker outside `avoidSlots`. */
  async createShard(meetingId: string, avoidSlots: readonly number[]): Promise<RemoteMediaShard> {
    const created = (await this.link.request('createShard', undefined, [meetingId, [...avoidSlots]])) as ShardCreated;
    const shard = new RemoteMediaShard(this.link, created, this.id, (closed) => this.shards.delete(closed.routerId));
    this.shards.set(shard.routerId, shard);
    return shard;
  }

  /** Peers the control plane has on the node's shards. */
  peerCount(): number {
    return peersOn(this.shards.values());
  }

  /** Shards the control plane holds on the node. */
  shardCount(): number {
    return this.shards.size;
  }

  /** Closes the channel: the node closes the shards, and here they are reported lost. */
  close(): void {
    this.link.close();
  }
}
