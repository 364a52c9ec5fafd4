package dev.idempotent.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * The kit can fail: each broken store fails the tests that check what it breaks. A variant listed
 * with no tests must pass the whole kit.
 */
class ContractCatchesFlawsTest {
  private static final Map<ReferenceStore.Flaw, List<String>> MUST_FAIL =
      Map.ofEntries(
          Map.entry(ReferenceStore.Flaw.NONE, List.of()),
          Map.entry(ReferenceStore.Flaw.KEYS_AS_UTF8, List.of()),
          Map.entry(ReferenceStore.Flaw.KEYS_AS_LATIN1, List.of("illFormedAndNulKeysStayDistinct")),
          Map.entry(
              ReferenceStore.Flaw.NO_FENCING,
              List.of(
                  "wrongOwnerIsFenced",
                  "completeTwice",
                  "leaseEndLetsNewOwnerInAndFencesOldOwner")),
          Map.entry(
              ReferenceStore.Flaw.CLAIM_OVERWRITES,
              List.of(
                  "secondClaimSeesInProgressRecord",
                  "concurrentClaimsHaveOneWinnerPerKey",
                  "claimAfterCompleteReturnsCompletedRecord")),
          Map.entry(
              ReferenceStore.Flaw.IGNORES_EXPIRY,
              List.of(
                  "ttlExpiryFreesCompletedKey",
                  "leaseEndLetsNewOwnerInAndFencesOldOwner",
                  "readNeverWrites")),
          Map.entry(ReferenceStore.Flaw.SHARES_OUTCOME_ARRAY, List.of("outcomeIsStoredByValue")),
          Map.entry(
              ReferenceStore.Flaw.FORGETS_FINGERPRINT,
              List.of("claimOnFreeKeyAcquires", "secondClaimSeesInProgressRecord")),
          Map.entry(
              ReferenceStore.Flaw.DELETE_ONLY_COMPLETED,
              List.of("deleteOfInProgressRecordFencesHolder", "awaitChangeReturnsAfterDelete")),
          Map.entry(
              ReferenceStore.Flaw.DELETE_IGNORES_SCOPE, List.of("deleteLeavesOtherKeysAndScopes")),
          Map.entry(
              ReferenceStore.Flaw.DELETE_LEAVES_OWNER,
              List.of("deleteOfInProgressRecordFencesHolder")),
          Map.entry(
              ReferenceStore.Flaw.DELETE_WITHOUT_NOTIFY, List.of("awaitChangeReturnsAfterDelete")),
          Map.entry(
              ReferenceStore.Flaw.RENEW_ALL_UNFENCED,
              List.of("renewAllFencesEachClaimOnItsOwn", "renewAllAnswersInOrder")),
          Map.entry(
              ReferenceStore.Flaw.RENEW_ALL_REVIVES_EXPIRED,
              List.of("renewAllOfExpiredClaimIsLost")),
          Map.entry(
              ReferenceStore.Flaw.RENEW_ALL_OUT_OF_ORDER,
              List.of("renewAllFencesEachClaimOnItsOwn", "renewAllAnswersInOrder")),
          Map.entry(ReferenceStore.Flaw.OUTCOME_CAP, List.of()),
          Map.entry(
              ReferenceStore.Flaw.OUTCOME_CAP_FAILING_THE_CALL,
              List.of("oneMebibyteOutcomeIsRecordedOrRefusedWithTheClaimKept")),
          Map.entry(
              ReferenceStore.Flaw.OUTCOME_CAP_DROPPING_THE_CLAIM,
              List.of("oneMebibyteOutcomeIsRecordedOrRefusedWithTheClaimKept")));

  @ParameterizedTest
  @EnumSource(ReferenceStore.Flaw.class)
  void contractFailsExactlyWhereTheStoreIsBroken(ReferenceStore.Flaw flaw) {
    FlawedStoreContract.flaw = flaw;
    try {
      LauncherDiscoveryRequest request =
          LauncherDiscoveryRequestBuilder.request()
              .selectors(selectClass(FlawedStoreContract.class))
              .build();
      Launcher launcher = LauncherFactory.create();
      SummaryGeneratingListener listener = new SummaryGeneratingListener();
      launcher.execute(request, listener);
      TestExecutionSummary summary = listener.getSummary();

      List<String> failed =
          summary.getFailures().stream()
              .map(f -> f.getTestIdentifier().getLegacyReportingName().replace("()", ""))
              .toList();
      assertThat(summary.getTestsFoundCount()).as("tests in the kit").isGreaterThanOrEqualTo(25);
      if (MUST_FAIL.get(flaw).isEmpty()) {
        assertThat(failed).as("failures of a store that must pass (%s)", flaw).isEmpty();
      } else {
        assertThat(failed)
            .as("failures of a store with flaw %s", flaw)
            .containsAll(MUST_FAIL.get(flaw));
      }
    } finally {
      FlawedStoreContract.flaw = ReferenceStore.Flaw.NONE;
    }
  }
}
