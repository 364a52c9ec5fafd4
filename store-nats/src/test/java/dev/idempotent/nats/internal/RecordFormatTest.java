package dev.idempotent.nats.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The record format, version 1, byte by byte as docs/stores/nats.md lists it. */
class RecordFormatTest {
  @Test
  void aClaimIsVersionKindLeaseOwnerAndFingerprint() {
    byte[] v = RecordFormat.claim("o1", null, 30_000);

    assertThat(v)
        .containsExactly(
            1, 'P', 0, 0, 0, 0, 0, 0, 0x75, 0x30, 0, 2, 'o', '1', (byte) 0xFF, (byte) 0xFF);
    RecordFormat.Value d = RecordFormat.decode(v);
    assertThat(d.inProgress()).isTrue();
    assertThat(d.durationMillis()).isEqualTo(30_000);
    assertThat(d.owner()).isEqualTo("o1");
    assertThat(d.fingerprint()).isNull();
  }

  @Test
  void anEmptyFingerprintIsNotAMissingOne() {
    assertThat(RecordFormat.decode(RecordFormat.claim("o", "", 1)).fingerprint()).isEmpty();
  }

  @Test
  void completedRecordsKeepTheOutcomeInlineOrNameTheirChunks() {
    byte[] outcome = {0, (byte) 0xFF, 7};
    RecordFormat.Value inline =
        RecordFormat.decode(RecordFormat.completedInline("o", "fp", 5, outcome));
    assertThat(inline.kind()).isEqualTo(RecordFormat.COMPLETED_INLINE);
    assertThat(inline.inlineOutcome()).isEqualTo(outcome);
    assertThat(inline.fingerprint()).isEqualTo("fp");

    byte[] sha = RecordFormat.sha256(outcome);
    String stem = KeyNames.chunkStem("r.0.a", "o");
    RecordFormat.Value chunked =
        RecordFormat.decode(RecordFormat.completedChunked("o", null, 5, 2, 3, sha, stem));
    assertThat(chunked.chunks()).isEqualTo(2);
    assertThat(chunked.outcomeLength()).isEqualTo(3);
    assertThat(chunked.outcomeSha256()).isEqualTo(sha);
    assertThat(chunked.chunkStem()).isEqualTo(stem);
  }

  @Test
  void bytesThatAreNotARecordAreRefusedSayingWhy() {
    assertThatThrownBy(() -> RecordFormat.decode("this is not a record".getBytes()))
        .hasMessageContaining("format version 116");
    assertThatThrownBy(() -> RecordFormat.decode(new byte[3])).hasMessageContaining("3 bytes");
    byte[] claim = RecordFormat.claim("owner", null, 1);
    assertThatThrownBy(() -> RecordFormat.decode(Arrays.copyOf(claim, claim.length - 1)))
        .hasMessageContaining("cut short");
    byte[] longer = Arrays.copyOf(claim, claim.length + 1);
    assertThatThrownBy(() -> RecordFormat.decode(longer)).hasMessageContaining("extra bytes");
    byte[] kind = claim.clone();
    kind[1] = 'X';
    assertThatThrownBy(() -> RecordFormat.decode(kind)).hasMessageContaining("unknown kind");
    byte[] badStem =
        RecordFormat.completedChunked("o", null, 5, 1, 3, new byte[32], "*".repeat(43));
    assertThatThrownBy(() -> RecordFormat.decode(badStem)).hasMessageContaining("chunk list");
  }
}
