package io.gpuledger.ingest.agent.cloud;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.gpuledger.ingest.testing.Fixtures;
import io.gpuledger.ingest.testing.StandInServer;
import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.CapacityEventKind;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Protocol rules of the three metadata services, against local stand-ins. */
class CloudMetadataTest {

    private static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    private final StandInServer server = StandInServer.start();

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void shouldAskAwsForATokenFirstAndReadTheSpotNoticeWithIt() throws Exception {
        server.require("X-aws-ec2-metadata-token", "tok-123")
                .answer("PUT /latest/api/token", 200, "tok-123")
                .answer("GET /latest/meta-data/spot/instance-action", 200,
                        "{\"action\": \"stop\", \"time\": \"2026-03-01T12:02:00Z\"}");
        AwsImds imds = new AwsImds(server.url(), TIMEOUT);

        List<CapacityEvent> notices = imds.notices(placement("aws"), NOW);

        assertThat(notices).singleElement().satisfies(notice -> {
            assertThat(notice.kind()).isEqualTo(CapacityEventKind.SPOT_INTERRUPTION);
            assertThat(notice.action()).isEqualTo("stop");
            assertThat(notice.deadline()).isEqualTo(Instant.parse("2026-03-01T12:02:00Z"));
            assertThat(notice.eventId()).isEqualTo("aws:i-1:spot_interruption:2026-03-01T12:02:00Z");
            assertThat(notice.raw()).contains("\"stop\"");
        });
        assertThat(server.requests()).first().isEqualTo("PUT /latest/api/token");
    }

    @Test
    void shouldSeeNoAwsNoticeWhenTheMetadataAnswers404() throws Exception {
        server.answer("PUT /latest/api/token", 200, "tok");

        assertThat(new AwsImds(server.url(), TIMEOUT).notices(placement("aws"), NOW)).isEmpty();
    }

    @Test
    void shouldReadAwsIdentityIncludingSpotLifecycle() {
        server.answer("PUT /latest/api/token", 200, "tok")
                .answer("GET /latest/meta-data/instance-id", 200, "i-0abc")
                .answer("GET /latest/meta-data/instance-type", 200, "p4d.24xlarge")
                .answer("GET /latest/meta-data/placement/region", 200, "us-east-1")
                .answer("GET /latest/meta-data/instance-life-cycle", 200, "spot")
                .answer("GET /latest/meta-data/local-hostname", 200, "ip-10-0-0-1.ec2.internal");

        assertThat(new AwsImds(server.url(), TIMEOUT).identity()).contains(new CloudIdentity("aws", "i-0abc",
                "p4d.24xlarge", "us-east-1", Lifecycle.SPOT, "ip-10-0-0-1.ec2.internal"));
    }

    @Test
    void shouldReadGcpPreemptionOnlyWithTheFlavorHeader() throws Exception {
        server.require("Metadata-Flavor", "Google")
                .answer("GET /computeMetadata/v1/instance/preempted", 200, "TRUE")
                .answer("GET /computeMetadata/v1/instance/maintenance-event", 200, "NONE");

        List<CapacityEvent> notices = new GcpMetadata(server.url(), TIMEOUT).notices(placement("gcp"), NOW);

        assertThat(notices).singleElement().satisfies(notice -> {
            assertThat(notice.kind()).isEqualTo(CapacityEventKind.PREEMPTION);
            assertThat(notice.deadline()).isEqualTo(NOW.plusSeconds(30));
        });
    }

    @Test
    void shouldReadGcpIdentityFromPathsOfZoneAndMachineType() {
        server.answer("GET /computeMetadata/v1/instance/id", 200, "4520031799277581759")
                .answer("GET /computeMetadata/v1/instance/zone", 200, "projects/123456789/zones/us-central1-a")
                .answer("GET /computeMetadata/v1/instance/machine-type", 200,
                        "projects/123456789/machineTypes/a2-highgpu-8g")
                .answer("GET /computeMetadata/v1/instance/scheduling/provisioning-model", 200, "SPOT");

        assertThat(new GcpMetadata(server.url(), TIMEOUT).identity()).contains(new CloudIdentity("gcp",
                "4520031799277581759", "a2-highgpu-8g", "us-central1", Lifecycle.SPOT, null));
    }

    @Test
    void shouldTakeAzureEventsOfThisVmOnlyWithTheirDeadline() throws Exception {
        server.require("Metadata", "true")
                .answer("GET /metadata/instance?api-version=2021-02-01", 200,
                        "{\"compute\":{\"name\":\"gpu-vm-1\",\"vmId\":\"02aab8a4-74ef-476e-8182-f6d2ba4166a6\","
                                + "\"vmSize\":\"Standard_NC24ads_A100_v4\",\"location\":\"eastus\","
                                        + "\"priority\":\"Spot\"}}")
                .answer("GET /metadata/scheduledevents?api-version=2020-07-01", 200, """
                        {"DocumentIncarnation": 2, "Events": [
                          {"EventId": "C7061BAC-AFDC-4513-B24B-AA5F13A16123", "EventStatus": "Scheduled",
                           "EventType": "Preempt", "ResourceType": "VirtualMachine", "Resources": ["gpu-vm-1"],
                           "NotBefore": "Sun, 01 Mar 2026 12:00:30 GMT", "Description": "", "EventSource": "Platform",
                           "DurationInSeconds": -1},
                          {"EventId": "D8E7A5D2-0000-4513-B24B-AA5F13A16999", "EventStatus": "Scheduled",
                           "EventType": "Reboot", "ResourceType": "VirtualMachine", "Resources": ["other-vm"],
                           "NotBefore": "Sun, 01 Mar 2026 12:10:00 GMT"}]}
                        """);
        AzureMetadata azure = new AzureMetadata(server.url(), TIMEOUT);
        CloudIdentity identity = azure.identity().orElseThrow();

        List<CapacityEvent> notices = azure.notices(new Placement("gpu-vm-1", identity.instanceId(),
                identity.instanceType(), "azure", identity.region(), identity.lifecycle()), NOW);

        assertThat(identity.lifecycle()).isEqualTo(Lifecycle.SPOT);
        assertThat(notices).singleElement().satisfies(notice -> {
            assertThat(notice.kind()).isEqualTo(CapacityEventKind.PREEMPTION);
            assertThat(notice.deadline()).isEqualTo(Instant.parse("2026-03-01T12:00:30Z"));
            assertThat(notice.eventId()).endsWith(":C7061BAC-AFDC-4513-B24B-AA5F13A16123");
        });
    }

    @Test
    void shouldReadTheDocumentedAwsNoticesAsServed() throws Exception {
        server.answer("PUT /latest/api/token", 200, "tok")
                .answer("GET /latest/meta-data/spot/instance-action", 200,
                        Fixtures.read("cloud/aws/imds-spot-instance-action-terminate.json"))
                .answer("GET /latest/meta-data/events/recommendations/rebalance", 200,
                        Fixtures.read("cloud/aws/imds-events-recommendations-rebalance.json"));

        List<CapacityEvent> notices = new AwsImds(server.url(), TIMEOUT).notices(placement("aws"), NOW);

        assertThat(notices).extracting(CapacityEvent::kind, CapacityEvent::action, CapacityEvent::deadline)
                .containsExactly(
                        tuple(CapacityEventKind.SPOT_INTERRUPTION, "terminate", Instant.parse("2017-09-18T08:22:00Z")),
                        tuple(CapacityEventKind.REBALANCE_RECOMMENDATION, "rebalance", null));
    }

    @Test
    void shouldReadTheDocumentedGcpAnswers() throws Exception {
        server.answer("GET /computeMetadata/v1/instance/preempted", 200,
                        Fixtures.read("cloud/gcp/metadata-instance-preempted-FALSE.txt"))
                .answer("GET /computeMetadata/v1/instance/maintenance-event", 200,
                        Fixtures.read("cloud/gcp/"
                                + "metadata-instance-maintenance-event-TERMINATE_ON_HOST_MAINTENANCE.txt"));

        List<CapacityEvent> notices = new GcpMetadata(server.url(), TIMEOUT).notices(placement("gcp"), NOW);

        assertThat(notices).singleElement().satisfies(notice -> {
            assertThat(notice.kind()).isEqualTo(CapacityEventKind.MAINTENANCE);
            assertThat(notice.action()).isEqualTo("terminate_on_host_maintenance");
        });
    }

    @Test
    void shouldReadTheDocumentedAzureEventsAndTheRealPreemptDocument() throws Exception {
        server.answer("GET /metadata/scheduledevents?api-version=2020-07-01", 200,
                Fixtures.read("cloud/azure/scheduledevents-docs-example-2-freeze-scheduled.json"));
        AzureMetadata azure = new AzureMetadata(server.url(), TIMEOUT);
        Placement westNo0 = new Placement("WestNO_0", "vm-1", "Standard_ND96asr_v4", "azure", "norwayeast",
                Lifecycle.ON_DEMAND);

        assertThat(azure.notices(westNo0, NOW)).singleElement().satisfies(notice -> {
            assertThat(notice.kind()).isEqualTo(CapacityEventKind.MAINTENANCE);
            assertThat(notice.action()).isEqualTo("Freeze");
            // The documented example says "Mon, 11 Apr 2026", a Saturday: the date wins.
            assertThat(notice.deadline()).isEqualTo(Instant.parse("2026-04-11T22:26:58Z"));
        });

        server.answer("GET /metadata/scheduledevents?api-version=2020-07-01", 200,
                Fixtures.read("cloud/azure/scheduledevents-preempt-simulate-eviction-mspnp.json"));
        Placement spotVm = new Placement("vm-spot", "vm-2", "Standard_NC24ads_A100_v4", "azure", "eastus",
                Lifecycle.SPOT);
        assertThat(azure.notices(spotVm, NOW)).singleElement().satisfies(notice -> {
            assertThat(notice.kind()).isEqualTo(CapacityEventKind.PREEMPTION);
            assertThat(notice.deadline()).isEqualTo(Instant.parse("2022-08-09T17:07:32Z"));
        });
        assertThat(azure.notices(westNo0, NOW)).isEmpty();

        server.answer("GET /metadata/scheduledevents?api-version=2020-07-01", 200,
                Fixtures.read("cloud/azure/scheduledevents-docs-example-1-empty.json"));
        assertThat(azure.notices(westNo0, NOW)).isEmpty();
    }

    @Test
    void shouldReadTheDocumentedAzureInstanceDocument() {
        server.answer("GET /metadata/instance?api-version=2021-02-01", 200,
                "{\"compute\": " + Fixtures.read("cloud/azure/imds-instance-compute-linux-docs-sample.json") + "}");

        CloudIdentity identity = new AzureMetadata(server.url(), TIMEOUT).identity().orElseThrow();

        assertThat(identity.region()).isEqualTo("westus");
        assertThat(identity.lifecycle()).isEqualTo(Lifecycle.ON_DEMAND);
        assertThat(identity.hostname()).isEqualTo("examplevmname");
        assertThat(identity.instanceId()).isNotBlank();
        assertThat(identity.instanceType()).isNotBlank();
    }

    private static Placement placement(String provider) {
        return new Placement("node-1", "i-1", "p4d.24xlarge", provider, "us-east-1", Lifecycle.SPOT);
    }
}
