/** The idempotency store on Amazon DynamoDB through the AWS SDK for Java 2. */
module dev.idempotent.dynamodb {
  requires transitive dev.idempotent.core;
  requires transitive software.amazon.awssdk.services.dynamodb;
  requires transitive software.amazon.awssdk.regions;
  requires transitive software.amazon.awssdk.auth;
  requires software.amazon.awssdk.awscore;
  requires software.amazon.awssdk.core;
  requires software.amazon.awssdk.http;
  requires software.amazon.awssdk.http.urlconnection;
  requires software.amazon.awssdk.http.nio.netty;
  requires org.slf4j;

  exports dev.idempotent.dynamodb;

  provides dev.idempotent.spi.IdempotencyStoreProvider with
      dev.idempotent.dynamodb.internal.DynamoDbStoreProvider;
}
