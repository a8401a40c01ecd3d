package io.gpuledger.bench.backtest;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import java.util.List;

/**
 * The mixed fleet the backtest replays: each member stands for a situation a rule must judge right,
 * the ones that cost money when judged by the rules' own assumptions among them.
 */
record BacktestFleet(List<FleetJob> jobs, List<Notebook> notebooks) {

    private static final double GIB = 1024.0 * 1024 * 1024;

    static BacktestFleet seed() {
        return new BacktestFleet(List.of(
                // A steady pool: two p4d busy all the time, the case reservations are for.
                FleetJob.named("llama-steady", "research").on(aws("us-east-1", "p4d.24xlarge"), "A100-40GB", 2, 16)
                        .training("llama-7b", "tokens", 1_250_000).communication(0.05).build(),
                // A pool of A10Gs, four busy all the time and two more by day: its baseline is four.
                FleetJob.named("embed-base", "search").on(aws("us-west-2", "g5.xlarge"), "A10G-24GB", 4, 4)
                        .training("embed-ft", "samples", 40_000).build(),
                FleetJob.named("embed-day", "search").on(aws("us-west-2", "g5.xlarge"), "A10G-24GB", 2, 2)
                        .training("embed-ft", "samples", 40_000).daily(8, 12).build(),
                // A pool that scales to zero: four p4d busy 8 hours a day, gone the rest.
                FleetJob.named("bert-daytime", "search").on(aws("us-west-2", "p4d.24xlarge"), "A100-40GB", 4, 32)
                        .training("bert-large-ft", "samples", 9_000).daily(9, 8).build(),
                // A synchronous job on 12 instances that checkpoints every 4 hours, where no spot band is
                // published: one instance taken back stalls all of them, so spot costs it more than it saves.
                FleetJob.named("gpt-sync", "research").on(aws("us-east-2", "p4d.24xlarge"), "A100-40GB", 12, 96)
                        .training("gpt-1b", "tokens", 2_000_000).communication(0.2).checkpointsEvery(4 * 3600)
                        .build(),
                // A synchronous job on 4 instances checkpointing hourly, in the <5% band: spot pays.
                FleetJob.named("gpt-small-sync", "research").on(aws("us-east-1", "p4d.24xlarge"), "A100-40GB", 4, 32)
                        .training("gpt-350m", "tokens", 3_000_000).communication(0.15).checkpointsEvery(3600)
                        .build(),
                // One instance that checkpoints every 30 minutes, ending within the month: spot pays.
                FleetJob.named("vit-sweep", "vision").on(aws("us-east-1", "p5.48xlarge"), "H100-80GB", 1, 8)
                        .training("vit-sweep", "samples", 5_000).checkpointsEvery(1800).endsBetween(18, 30)
                        .build(),
                // INT8 serving on four V100s with a daily demand: T4s carry it for less; p4d, priced per GPU,
                // would look cheaper per image but is billed whole. Its GPUs idle at night while they serve.
                FleetJob.named("resnet-serve", "vision").on(aws("us-east-1", "p3.2xlarge"), "V100-16GB", 4, 4)
                        .serving("resnet50-int8", "images", 9_000_000, 0.04).build(),
                // A one-GPU training job on a V100 that ends within its first week: an L4 does its work for less.
                FleetJob.named("small-train", "vision").on(aws("us-east-1", "p3.2xlarge"), "V100-16GB", 1, 1)
                        .training("unet-seg", "samples", 900).peakMemory(12 * GIB).endsBetween(4, 7).build(),
                // Fine-tuning on Tencent A100-80GB, priced in yuan, whose memory fits Volcano Engine's 40 GB in
                // another provider: not moved there by default.
                FleetJob.named("qwen-finetune", "cn-nlp").on(new Offer("tencent", "ap-shanghai", "GN10Xp",
                        Lifecycle.ON_DEMAND), "A100-80GB", 1, 1).training("qwen-7b-ft", "tokens", 1_300_000)
                        .peakMemory(30 * GIB).build(),
                // A job on four 4-GPU instances with an 80 Gbit/s network, a third of each step communicating:
                // the same GPUs on 1600 Gbit/s InfiniBand do its work for less.
                FleetJob.named("dist-nc", "research").on(new Offer("azure", "eastus", "Standard_NC96ads_A100_v4",
                        Lifecycle.ON_DEMAND), "A100-80GB", 4, 16).training("llama-13b", "tokens", 900_000)
                        .communication(0.35).build(),
                // A p4d whose job uses 7 of its 8 GPUs: the idle one saves nothing, the instance is billed whole.
                FleetJob.named("tune-7", "ads").on(aws("us-east-1", "p4d.24xlarge"), "A100-40GB", 1, 7)
                        .training("ctr-tune", "samples", 20_000).build(),
                // A job on two p4d that uses the GPUs of one, ending within its first week: it can shrink to one.
                FleetJob.named("eval-wide", "ads").on(aws("us-west-2", "p4d.24xlarge"), "A100-40GB", 2, 8)
                        .training("ctr-eval", "samples", 30_000).endsBetween(4, 7).build(),
                // A p4d no job holds, idle all the time.
                FleetJob.spare("spare-p4d").on(aws("us-west-2", "p4d.24xlarge"), "A100-40GB", 1, 0).build(),
                // Sweeps already on spot, one p4d each, checkpointing hourly where no band is published: the cloud
                // takes them back often, and an evacuation's checkpoint keeps their work.
                sweep("sweep-a", "vision"), sweep("sweep-b", "vision"), sweep("sweep-c", "vision"),
                sweep("sweep-d", "speech"), sweep("sweep-e", "speech"), sweep("sweep-f", "speech")),
                List.of(
                        new Notebook("nb-ana", "research", aws("us-east-1", "g5.xlarge"), "A10G-24GB", 9 * 60, 120),
                        new Notebook("nb-bo", "vision", aws("us-east-1", "g4dn.xlarge"), "T4-16GB", 13 * 60, 90),
                        new Notebook("nb-chen", "cn-nlp", aws("us-east-1", "g5.xlarge"), "A10G-24GB", 2 * 60, 180)));
    }

    private static FleetJob sweep(String id, String team) {
        return FleetJob.named(id, team).on(spot("us-east-2", "p4d.24xlarge"), "A100-40GB", 1, 8)
                .training("sweep", "samples", 6_000).checkpointsEvery(3600).build();
    }

    private static Offer aws(String region, String type) {
        return new Offer("aws", region, type, Lifecycle.ON_DEMAND);
    }

    private static Offer spot(String region, String type) {
        return new Offer("aws", region, type, Lifecycle.SPOT);
    }
}
