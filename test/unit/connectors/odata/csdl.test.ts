import { readCsdl } from '../../../../connectors/odata/csdl';

describe('readCsdl', () => {
  it('reads entity sets with inherited properties, navigation properties and keys, whatever the namespace or alias', () => {
    const xml = `<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
  <edmx:DataServices>
    <Schema Namespace="Microsoft.Dynamics.CRM" Alias="mscrm" xmlns="http://docs.oasis-open.org/odata/ns/edm">
      <EntityType Name="crmbaseentity" Abstract="true"/>
      <EntityType Name="base">
        <Key><PropertyRef Name="id" /></Key>
        <Property Name="id" Type="Edm.Guid" Nullable="false"/>
        <Property Name="modifiedon" Type="Edm.DateTimeOffset" />
      </EntityType>
      <EntityType Name="account" BaseType="mscrm.base">
        <Property Name="name" Type="Edm.String" MaxLength="160"/>
        <Property Name="revenue" Type="Edm.Decimal" Scale="Variable"/>
        <NavigationProperty Name="owner" Type="mscrm.base"/>
      </EntityType>
      <EntityContainer Name="System">
        <EntitySet Name="accounts" EntityType="mscrm.account"/>
        <EntitySet Name="unknowns" EntityType="mscrm.nothing"/>
      </EntityContainer>
    </Schema>
  </edmx:DataServices>
</edmx:Edmx>`;
    const model = readCsdl(xml);
    expect([...model.keys()]).toEqual(['accounts']);
    const accounts = model.get('accounts')!;
    expect([...accounts.columns.values()]).toEqual([
      { name: 'id', type: 'Edm.Guid', kind: 'text' },
      { name: 'modifiedon', type: 'Edm.DateTimeOffset', kind: 'datetime' },
      { name: 'name', type: 'Edm.String', kind: 'text' },
      { name: 'revenue', type: 'Edm.Decimal', kind: 'decimal' },
      { name: 'owner', type: 'mscrm.base', kind: 'other' },
    ]);
    expect(accounts.uniqueKeys).toEqual([['id']]);
  });
});
