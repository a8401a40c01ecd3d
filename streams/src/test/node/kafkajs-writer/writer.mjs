// A shared GPU's telemetry as a writer that is not GPU Ledger's agent sends it: kafkajs's own Kafka protocol and
// record batches (GZIP), and JavaScript's own JSON (JSON.stringify: its field order, its number forms, indented).
//
//   node writer.mjs BOOTSTRAP TOPIC GPU_UUID START
//
// Six samples of 10 s from START, of a GPU two jobs share: 0.6 of it by SM time to "ranker" of team "search",
// 0.3 to "notebook-ada", whose allocation names no team (the node's, "research"); 0.1 is nobody's. Between them, a
// sample whose shares add up to more than 1, which the engine must refuse. Prints "sent N" once the broker has
// them all.
import { Kafka, CompressionTypes, logLevel } from 'kafkajs';

const [bootstrap, topic, gpu, start] = process.argv.slice(2);
const startMillis = Date.parse(start);

function sample(second, allocations) {
  // The writer's own order: what changes first, the GPU's identity last
  return {
    time: new Date(startMillis + second * 1000).toISOString(),
    intervalSeconds: 10,
    smActive: 0.9,
    allocations,
    jobId: 'shared',
    team: 'research',
    gpuUuid: gpu,
    gpuIndex: 3,
    gpuModel: 'A100-SXM4-40GB',
    host: 'node-js-1',
    instanceId: 'i-0kafkajs',
    instanceType: 'p4d.24xlarge',
    provider: 'aws',
    region: 'us-east-1',
    lifecycle: 'on-demand',
  };
}

const shared = [
  { share: 0.6, measuredBy: 'sm', team: 'search', jobId: 'ranker' },
  { jobId: 'notebook-ada', measuredBy: 'sm', share: 0.3 },
];
const messages = [];
for (let second = 10; second <= 60; second += 10) {
  messages.push({ key: gpu, value: JSON.stringify(sample(second, shared), null, 2) });
  if (second === 30) {
    const tooMuch = [{ jobId: 'ranker', share: 0.7, measuredBy: 'sm' }, { jobId: 'other', share: 0.7, measuredBy: 'sm' }];
    messages.push({ key: gpu, value: JSON.stringify(sample(35, tooMuch)) });
  }
}

const kafka = new Kafka({ clientId: 'kafkajs-writer', brokers: [bootstrap], logLevel: logLevel.ERROR });
const producer = kafka.producer({ allowAutoTopicCreation: false });
await producer.connect();
try {
  await producer.send({ topic, messages, acks: -1, compression: CompressionTypes.GZIP });
  console.log(`sent ${messages.length}`);
} finally {
  await producer.disconnect();
}
