import { cardTypeLabel, localTime } from "./types.ts"

/**
 * The SQL pieces of the transaction tables (invoice_item_transactions, transactions), written
 * after invoice-parts.ts's \`invoiceMoneyCtes\` (they read its \`chosen\`) and joined with its
 * \`invoiceJoins\` (\`transactionSelect\` reads the invoice's \`ab\`), so a transaction's fields have
 * one source and the same value in both.
 *
 * \`transactionCtes\`: \`tx\`, every payment and refund of a reported invoice in any state, and
 * \`moved\`, each with its settled amount (\`settled\`: the signed amount when settled, else 0),
 * card network and method detail. Payments and refunds have ids of their own, so
 * \`transaction_id\` alone may name a payment and a refund: \`transaction_type\` tells them apart.
 *
 * Signs as the invoices resource's: a payment positive, a refund negative. Only settled
 * transactions move money; a failed or voided one has \`settled\` 0 (\`transaction_amount\` still
 * shows what it was for, signed the same way).
 *
 * - transaction_state as stored: settled, failed, voided (\`checkout\`, \`completed\`, \`processing\`
 *   are never written: payments settle or fail at once). failed_at: when a failed one was tried.
 * - payment_method from the payment type (a refund's own: it may go to cash or account credit):
 *   1 creditcard, 2 cash, 3 check, 4 ach, 5 account credit → \`credit\`, 100+ the business's
 *   external methods → \`external\` (their name in external_payment_name).
 * - credit_card_name: the card's network (\`visa\`, \`master_card\`, \`american_express\`,
 *   \`discover\`), \`other_credit_card\` for an unknown one or a form of payment since deleted.
 * - payment_method_detail: the card's network, last four digits and expiry, or the ACH account's
 *   name and masked number; never more.
 * - processing_method: \`sandbox\` (the payment processor, the only gateway so far) for visa,
 *   master_card and discover; \`american_express\` (network processing) for American Express;
 *   \`other\` for the rest.
 * - processor_transaction_id: the gateway's transaction id (checks have no stored number).
 * - transaction_autopay: a card payment of an automatic-billing invoice made by no staff
 *   member, which is what the billing run's charges are (src/billing-runs).
 */
export const PROCESSOR_NAME = "sandbox"

export const transactionCtes = `
    tx as (
      select py.business_id, py.invoice_id, py.id, 'payment' as type, py.state, py.amount_cents::bigint as amount,
             py.payment_type_id, py.payment_method as method_name, py.form_of_payment_id, py.gateway_transaction_id,
             py.error_message, py.created_at, py.voided_at, null::bigint as payment_id,
             py.payment_type_id = 1 and py.created_by_staff_member_id is null as unattended
        from payments py where (py.business_id, py.invoice_id) in (select business_id, id from chosen)
      union all
      select rf.business_id, rf.invoice_id, rf.id, 'refund', rf.state, -rf.amount_cents::bigint,
             rf.payment_type_id, py.payment_method, case when rf.payment_type_id = py.payment_type_id then py.form_of_payment_id end,
             rf.gateway_transaction_id, rf.error_message, rf.created_at, rf.voided_at, rf.payment_id, false
        from refunds rf
        join payments py on py.business_id = rf.business_id and py.id = rf.payment_id
       where (rf.business_id, rf.invoice_id) in (select business_id, id from chosen)),
    moved as (
      select tx.*, case when tx.state = 'settled' then tx.amount else 0 end as settled,
             case when tx.payment_type_id = 1 then
               case when f.card_type in ('visa', 'master_card', 'american_express', 'discover') then f.card_type else 'other_credit_card' end
             end as card,
             case when tx.payment_type_id = 1 and f.id is not null then
                    ${cardTypeLabel("f.card_type")} || ' ' || f.last_four || ' ' || lpad(f.expire_month::text, 2, '0') || '/' || f.expire_year
                  when tx.payment_type_id = 4 and f.id is not null then
                    nullif(concat_ws(' ', f.account_name, f.account_number_masked), '')
             end as method_detail
        from tx left join forms_of_payment f on f.id = tx.form_of_payment_id)`

/** The transaction's own columns (after the invoice's), in the order \`transactionSelect\` gives them. */
export const transactionColumns: ReadonlyArray<readonly [string, string]> = [
    ["transaction_id", "BIGINT NOT NULL"],
    ["transaction_type", "VARCHAR NOT NULL"],
    ["transaction_state", "VARCHAR"],
    ["transaction_at", "TIMESTAMPTZ"],
    ["local_transaction_at", "TIMESTAMP"],
    ["failed_at", "TIMESTAMPTZ"],
    ["local_failed_at", "TIMESTAMP"],
    ["voided_at", "TIMESTAMPTZ"],
    ["error_message", "VARCHAR"],
    ["payment_method", "VARCHAR"],
    ["credit_card_name", "VARCHAR"],
    ["payment_method_detail", "VARCHAR"],
    ["external_payment_name", "VARCHAR"],
    ["processing_method", "VARCHAR"],
    ["processor_transaction_id", "VARCHAR"],
    ["payment_transaction_id", "BIGINT"],
    ["transaction_autopay", "BOOLEAN"],
    ["transaction_amount", "BIGINT"]
]

export const transactionSelect = `
      tx.id as transaction_id,
      tx.type as transaction_type,
      tx.state as transaction_state,
      tx.created_at as transaction_at,
      ${localTime("tx.created_at", "coalesce(l.time_zone, b.time_zone)")} as local_transaction_at,
      case when tx.state = 'failed' then tx.created_at end as failed_at,
      case when tx.state = 'failed' then ${localTime("tx.created_at", "coalesce(l.time_zone, b.time_zone)")} end as local_failed_at,
      tx.voided_at,
      tx.error_message,
      case tx.payment_type_id when 1 then 'creditcard' when 2 then 'cash' when 3 then 'check' when 4 then 'ach' when 5 then 'credit'
           else case when tx.payment_type_id >= 100 then 'external' else 'other' end end as payment_method,
      tx.card as credit_card_name,
      tx.method_detail as payment_method_detail,
      case when tx.payment_type_id >= 100 then tx.method_name end as external_payment_name,
      case when tx.card in ('visa', 'master_card', 'discover') then '${PROCESSOR_NAME}'
           when tx.card = 'american_express' then 'american_express' else 'other' end as processing_method,
      tx.gateway_transaction_id as processor_transaction_id,
      tx.payment_id as payment_transaction_id,
      tx.unattended and ab.invoice_id is not null as transaction_autopay,
      tx.amount as transaction_amount`
