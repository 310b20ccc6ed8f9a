import source from "#app/content/conditions-of-use.txt?raw";
import { PlainTextPage } from "#app/features/legal/plain-text-page";

export default function Conditions() {
  return <PlainTextPage source={source} description="Storefront's Conditions of Use & Sale." />;
}
