//! adk-rust function tools: a closure handler and a named one.

use adk_tool::FunctionTool;

async fn lookup_order(_ctx: Arc<dyn ToolContext>, args: Value) -> Result<Value> {
    Ok(args)
}

pub fn tools(client: reqwest::Client) -> Vec<FunctionTool> {
    let refund = FunctionTool::new("refund_order", "Refund an order", move |_ctx, args| {
        let client = client.clone();
        async move {
            client
                .post("https://shop.example/refunds")
                .json(&args)
                .send()
                .await?;
            Ok(args)
        }
    });
    let lookup = FunctionTool::new("lookup_order", "Look an order up", lookup_order);
    vec![refund, lookup]
}
