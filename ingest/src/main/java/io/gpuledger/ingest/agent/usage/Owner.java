package io.gpuledger.ingest.agent.usage;

/**
 * The job a GPU user works for, and who pays for it.
 *
 * @param jobId the job
 * @param team  its team; null when the node does not say
 */
public record Owner(String jobId, String team) {

    public Owner {
        if (jobId == null || jobId.isBlank()) {
            throw new IllegalArgumentException("an owner names its job");
        }
        team = team == null || team.isBlank() ? null : team;
    }
}
