/**
 * An idempotency store in an Amazon DynamoDB table: {@link
 * dev.idempotent.dynamodb.DynamoDbIdempotencyStore}. With this module on the classpath, {@code
 * idempotent.store=dynamodb} and the {@code idempotent.dynamodb.*} settings configure it with no
 * code.
 */
package dev.idempotent.dynamodb;
