package io.gpuledger.alerts.recommend;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.model.JobTraits;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Offer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.DoublePredicate;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * The index answers what trying every peer in turn answers: the same cheapest peer (the first
 * of equal cost, in the peers' order) and the same count, for jobs of random fleets full of the
 * cases that must not count: the job itself (in another place, too), peers in its own place
 * (the instance type in another case), another unit, lifecycle or workload, no work reported.
 */
class PeerIndexTest {

    private static final String[] TYPES = {"p4d.24xlarge", "P4D.24xlarge", "p5.48xlarge", "g5.48xlarge"};
    private static final String[] REGIONS = {"us-east-1", "eu-west-1"};
    private static final String[] UNITS = {"tokens", "samples"};
    private static final String[] WORKLOADS = {null, "llama-70b", "resnet-50"};
    private static final Lifecycle[] LIFECYCLES = {Lifecycle.ON_DEMAND, Lifecycle.SPOT};
    /** Peers in the job's own region only, as by default, and anywhere (all providers here are one). */
    private static final Reach[] REACHES = {Reach.SAME_REGION, new Reach(true, false, 0.09)};

    @Test
    void findsTheSameCheapestPeerAndCountAsTryingEveryPeer() {
        Random random = new Random(7);
        int withCandidates = 0;
        for (int fleet = 0; fleet < 300; fleet++) {
            List<JobView> peers = new ArrayList<>();
            int jobs = 1 + random.nextInt(40);
            for (int i = 0; i < jobs; i++) {
                peers.add(randomJob("job-" + random.nextInt(jobs), random));
            }
            PeerIndex index = PeerIndex.of(peers);
            for (int probe = 0; probe < 20; probe++) {
                JobView job = randomJob("job-" + random.nextInt(jobs + 5), random);
                // Costs per million units run from 3.3 to 45.
                double bound = 3 + random.nextDouble() * 40;
                DoublePredicate worthIt = cost -> cost <= bound;
                Predicate<JobView> fits = peer -> !peer.gpuModel().equals("A10G");

                for (Reach reach : REACHES) {
                    PeerIndex.Comparison found = index.compare(job, worthIt, reach, fits);

                    PeerIndex.Comparison expected = everyPeer(job, peers, worthIt, reach, fits);
                    assertThat(found.cheapest().map(JobView::jobId)).as("fleet %d, probe %d, %s", fleet, probe, reach)
                            .isEqualTo(expected.cheapest().map(JobView::jobId));
                    assertThat(found.cheapest()).isEqualTo(expected.cheapest());
                    assertThat(found.worthIt()).as("fleet %d, probe %d, %s", fleet, probe, reach)
                            .isEqualTo(expected.worthIt());
                    withCandidates += expected.worthIt() > 0 ? 1 : 0;
                }
            }
        }
        assertThat(withCandidates).as("probes with a peer worth it").isGreaterThan(1000);
    }

    @Test
    void aJobThatReportsNoWorkHasNoPeers() {
        JobView busy = JobViewBuilder.job("busy", offer("p5.48xlarge", "us-east-1", Lifecycle.ON_DEMAND), "H100", 8,
                98).work("tokens", 1e9).build();
        JobView silent = JobViewBuilder.job("silent", offer("p4d.24xlarge", "us-east-1", Lifecycle.ON_DEMAND), "A100",
                8, 32).build();

        PeerIndex.Comparison comparison = PeerIndex.of(List.of(busy, silent)).compare(silent, cost -> true,
                Reach.SAME_REGION, p -> true);

        assertThat(comparison.cheapest()).isEmpty();
        assertThat(comparison.worthIt()).isZero();
    }

    /** What the rule did before the index: every peer tried in turn. */
    private static PeerIndex.Comparison everyPeer(JobView job, List<JobView> peers, DoublePredicate worthIt,
            Reach reach, Predicate<JobView> fits) {
        JobView cheapest = null;
        int count = 0;
        for (JobView peer : peers) {
            boolean comparable = !peer.jobId().equals(job.jobId()) && peer.reportsThroughput()
                    && peer.unit().equals(job.unit()) && peer.currency().equals(job.currency())
                    && peer.pool().lifecycle() == job.pool().lifecycle()
                    && !(peer.pool().provider().equals(job.pool().provider())
                            && peer.pool().region().equals(job.pool().region())
                            && peer.pool().instanceType().equalsIgnoreCase(job.pool().instanceType()))
                    && worthIt.test(peer.costPerMillionUnits())
                    && (peer.pool().region().equals(job.pool().region()) || reach.otherRegions())
                    && (job.workload() != null ? job.workload().equals(peer.workload()) : fits.test(peer));
            if (comparable) {
                count++;
                if (cheapest == null || peer.costPerMillionUnits() < cheapest.costPerMillionUnits()) {
                    cheapest = peer;
                }
            }
        }
        return new PeerIndex.Comparison(Optional.ofNullable(cheapest), count);
    }

    private static JobView randomJob(String jobId, Random random) {
        Offer pool = offer(TYPES[random.nextInt(TYPES.length)], REGIONS[random.nextInt(REGIONS.length)],
                LIFECYCLES[random.nextInt(LIFECYCLES.length)]);
        // Few distinct prices, so that peers of equal cost are common.
        double costPerHour = 10 + random.nextInt(8) * 5;
        JobViewBuilder builder = JobViewBuilder.job(jobId, pool, random.nextInt(4) == 0 ? "A10G" : "A100", 8,
                costPerHour).traits(new JobTraits(WORKLOADS[random.nextInt(WORKLOADS.length)], null, null, null));
        if (random.nextInt(8) > 0) {
            builder.work(UNITS[random.nextInt(UNITS.length)], 1e6 * (1 + random.nextInt(3)));
        }
        return builder.build();
    }

    private static Offer offer(String type, String region, Lifecycle lifecycle) {
        return new Offer("aws", region, type, lifecycle);
    }
}
