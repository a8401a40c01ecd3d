package io.gpuledger.cli.backtest;

import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import io.gpuledger.model.WorkloadClass;
import java.util.List;

/**
 * The mixed fleet the backtest replays: each member stands for a situation a rule must judge right.
 */
record BacktestFleet(List<FleetJob> jobs, List<Notebook> notebooks) {

    private static final double GIB = 1024.0 * 1024 * 1024;

    static BacktestFleet seed() {
        return new BacktestFleet(List.of(
                // A steady pool: two p4d busy all the time, the case reservations are for.
                FleetJob.named("llama-steady", "research").on(aws("us-east-1", "p4d.24xlarge"), "A100-40GB", 16)
                        .work("llama-7b", WorkloadClass.TRAINING, "tokens", 1_250_000).communication(0.05).build(),
                // A pool that scales to zero: four p4d busy 8 hours a day, idle (and gone) the rest.
                FleetJob.named("bert-daytime", "search").on(aws("us-west-2", "p4d.24xlarge"), "A100-40GB", 32)
                        .work("bert-large-ft", WorkloadClass.TRAINING, "samples", 9_000).daily(8, 8).build(),
                // A synchronous job on 32 instances that checkpoints every 4 hours: one instance taken
                // back stalls all of them, so spot costs it more than it saves.
                FleetJob.named("gpt-sync", "research").on(aws("us-east-2", "p4d.24xlarge"), "A100-40GB", 256)
                        .work("gpt-1b", WorkloadClass.TRAINING, "tokens", 2_000_000).communication(0.2)
                        .checkpointsEvery(4 * 3600).build(),
                // One instance that checkpoints every 30 minutes: spot pays.
                FleetJob.named("vit-sweep", "vision").on(aws("us-east-1", "p5.48xlarge"), "H100-80GB", 8)
                        .work("vit-sweep", WorkloadClass.TRAINING, "samples", 5_000).checkpointsEvery(1800).build(),
                // INT8 serving on V100s, where T4s serve faster for less.
                FleetJob.named("resnet-serve", "vision").on(aws("us-east-1", "p3.2xlarge"), "V100-16GB", 2)
                        .work("resnet50-int8", WorkloadClass.INFERENCE, "images", 9_000_000).build(),
                // Fine-tuning on Tencent A100-80GB, priced in yuan, whose memory fits Volcano Engine's 40 GB.
                FleetJob.named("qwen-finetune", "cn-nlp").on(new Offer("tencent", "ap-shanghai", "GN10Xp",
                        Lifecycle.ON_DEMAND), "A100-80GB", 4)
                        .work("qwen-7b-ft", WorkloadClass.TRAINING, "tokens", 1_300_000).peakMemory(30 * GIB).build()),
                List.of(
                        new Notebook("nb-ana", "research", aws("us-east-1", "g5.xlarge"), "A10G-24GB", 9 * 60, 120),
                        new Notebook("nb-bo", "vision", aws("us-east-1", "g4dn.xlarge"), "T4-16GB", 13 * 60, 90),
                        new Notebook("nb-chen", "cn-nlp", aws("us-east-1", "g5.xlarge"), "A10G-24GB", 2 * 60, 180)));
    }

    private static Offer aws(String region, String type) {
        return new Offer("aws", region, type, Lifecycle.ON_DEMAND);
    }
}
